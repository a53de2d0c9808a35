// `switchyard run --trace` as a real child process against the fake model server.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openForSuite } from '../__fixtures__/open-for-suite';
import { expectSucceeded, openCliBed, runCli } from '../__fixtures__/run-cli';

const bed = openForSuite(() => openCliBed('switchyard-trace-'));

describe('switchyard run --trace', () => {
  it("prints the turn's span tree with durations after the summary", async () => {
    const { root, fake } = bed();
    await writeFile(
      path.join(root, 'switchyard.config.json'),
      JSON.stringify({ categories: { computer: { homeRoot: 'homes' } } }),
    );
    fake.reset([
      {
        functionCalls: [
          { name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' }, callId: 'w1' },
          { name: 'read_file', arguments: '```json\n{"path": "a.txt"}\n```', callId: 'r1' },
        ],
        usage: { inputTokens: 90, outputTokens: 12 },
        id: 'resp_first',
      },
      { text: 'Done.', usage: { inputTokens: 140, outputTokens: 3 }, id: 'resp_second' },
    ]);
    const run = await runCli(['run', 'write and read a.txt', '--trace'], {
      cwd: root,
      env: { OPENAI_BASE_URL: fake.baseURL, SWITCHYARD_MODEL: 'scripted' },
    });
    expectSucceeded(run);
    const lines = run.stdout.trimEnd().split('\n');
    const start = lines.findIndex((line) => line.startsWith('invoke_agent main'));
    expect(start).toBeGreaterThan(0);
    const tree = lines.slice(start);
    const duration = String.raw`[\d.]+ m?s`;
    expect(tree).toHaveLength(5);
    expect(tree[0]).toMatch(
      new RegExp(`^invoke_agent main  ${duration}  completed  230 in / 15 out tokens$`),
    );
    expect(tree[1]).toMatch(new RegExp(`^├─ chat scripted  ${duration}  resp_first  90 in / 12 out tokens$`));
    expect(tree[2]).toMatch(new RegExp(`^├─ execute_tool write_file  ${duration}  completed$`));
    expect(tree[3]).toMatch(
      new RegExp(`^├─ execute_tool read_file  ${duration}  completed  repaired: [a-z-]+(, [a-z-]+)*$`),
    );
    expect(tree[4]).toMatch(
      new RegExp(`^└─ chat scripted  ${duration}  resp_second  140 in / 3 out tokens$`),
    );
  });
});
