import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { expectSucceeded, runCli } from './__fixtures__/run-cli';

// The demo runs with test runners unresolvable (see __fixtures__/refuse-test-runners.mjs): it must
// need only the worker's production dependencies. production-dependencies.test.ts shows the hook bites.
const refuseTestRunners = new URL('./__fixtures__/refuse-test-runners.mjs', import.meta.url).href;

describe('switchyard demo (the built CLI, as scripts/demo.sh runs it)', () => {
  it('runs a whole scripted turn with live progress and says the model is scripted', async () => {
    const run = await runCli(['demo'], {
      cwd: os.tmpdir(),
      env: { OPENAI_API_KEY: 'must-not-be-used' },
      nodeArguments: ['--import', refuseTestRunners],
    });
    expectSucceeded(run);
    const output = run.stdout;
    expect(output).toMatch(/^Switchyard demo: the model is scripted\.\n/);
    expect(output).toContain('no real model is called');
    const progress = output.split('\n').filter((line) => /^[…✓✗] /.test(line));
    expect(progress.slice(0, 12)).toEqual([
      '… Updating the todo list (4 items)',
      expect.stringMatching(/^✓ Todo list: 0 of 4 done \(\d+ ms\)$/),
      '… Writing notes/plan.md [destructive]',
      expect.stringMatching(/^✓ Wrote 6 lines to notes\/plan\.md \(\d+ ms\)$/),
      '… Running `wc -l notes/plan.md` [destructive]',
      expect.stringMatching(/^✓ Command exited 0 after .*\)$/),
      expect.stringMatching(/^… Fetching 127\.0\.0\.1:\d+\/release-notes\.html$/),
      expect.stringMatching(/^✓ Fetched \d+ B from 127\.0\.0\.1:\d+ \(.*\)$/),
      '… Scheduling weekday-digest',
      expect.stringMatching(/^✓ Scheduled weekday-digest \(.*\)$/),
      '… Starting workflow release-check (2 tasks)',
      expect.stringMatching(/^✓ Started workflow release-check \(.*\)$/),
    ]);
    // The workflow's tasks run as sub-agent turns once the main turn started them, beside its last
    // model request: either may print first (sorted here: `[` comes before `c`).
    expect(progress.slice(12).sort()).toEqual([
      '✓ [task count-features] Submitted the result',
      '✓ [task headline] Submitted the result',
      expect.stringMatching(/^✓ completed · 6 iterations · 6 tool calls · [\d,]+ tokens/),
    ]);
    expect(output).toMatch(/- workflow release-check \([0-9a-f-]{36}\): completed\n/);
    expect(output).toContain('  - task count-features: completed, result in the database: {"features":2}\n');
    expect(output).toMatch(
      / {2}- task headline: completed, result in the database: \{"headline":"Switchyard 0\.1: /,
    );
    expect(output).toMatch(/- .*notes\/plan\.md: 6 lines\n/);
    expect(output).toMatch(
      /- schedule weekday-digest in the database: cron "0 9 \* \* 1-5" in UTC, next \d{4}-/,
    );
    expect(output).toContain('- 8 requests to the scripted model');
  }, 180_000);
});
