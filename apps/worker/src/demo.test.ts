import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCli } from './__fixtures__/run-cli';

describe('switchyard demo (the built CLI, as scripts/demo.sh runs it)', () => {
  it('runs a whole scripted turn with live progress and says the model is scripted', async () => {
    const run = await runCli(['demo'], { cwd: os.tmpdir(), env: { OPENAI_API_KEY: 'must-not-be-used' } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const output = run.stdout;
    expect(output).toMatch(/^Switchyard demo: the model is scripted\.\n/);
    expect(output).toContain('no real model is called');
    const progress = output.split('\n').filter((line) => /^[…✓✗] /.test(line));
    expect(progress).toEqual([
      '… Updating the todo list (4 items)',
      expect.stringMatching(/^✓ Todo list: 0 of 4 done \(\d+ ms\)$/),
      '… Writing notes/plan.md',
      expect.stringMatching(/^✓ Wrote 6 lines to notes\/plan\.md \(\d+ ms\)$/),
      '… Running `wc -l notes/plan.md`',
      expect.stringMatching(/^✓ Command exited 0 after .*\)$/),
      expect.stringMatching(/^… Fetching 127\.0\.0\.1:\d+\/release-notes\.html$/),
      expect.stringMatching(/^✓ Fetched \d+ B from 127\.0\.0\.1:\d+ \(.*\)$/),
      '… Scheduling weekday-digest',
      expect.stringMatching(/^✓ Scheduled weekday-digest \(.*\)$/),
      expect.stringMatching(/^✓ completed · 5 iterations · 5 tool calls · [\d,]+ tokens/),
    ]);
    expect(output).toMatch(/- .*notes\/plan\.md: 6 lines\n/);
    expect(output).toMatch(
      /- schedule weekday-digest in the database: cron "0 9 \* \* 1-5" in UTC, next \d{4}-/,
    );
    expect(output).toContain('- 5 requests to the scripted model');
  }, 180_000);
});
