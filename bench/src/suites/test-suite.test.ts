import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderTestSuiteSection } from '../report/write-results';
import { readTestSuiteRun, testSuite } from './test-suite';

const WHOLE = 'turbo run build type-check lint check-package test --concurrency=3 --continue';

function summary(command: string, startTime: number, seconds: number, cached = 0, exitCode = 0): string {
  return JSON.stringify({
    execution: { command, startTime, endTime: startTime + seconds * 1000, exitCode, cached, attempted: 3 },
    tasks: [
      { taskId: '@switchyard/core#test', execution: { startTime, endTime: startTime + 50_000 } },
      { taskId: '@switchyard/worker#test', execution: { startTime, endTime: startTime + 200_000 } },
      { taskId: '@switchyard/core#build', execution: { startTime, endTime: startTime + 9_000 } },
    ],
  });
}

let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

describe('the test-suite section', () => {
  it('reads a cold run of the whole command: wall time and its longest tasks', () => {
    const run = readTestSuiteRun('.turbo/runs/a.json', summary(WHOLE, Date.UTC(2026, 11, 3), 400));
    expect(run).toEqual({
      file: '.turbo/runs/a.json',
      date: '2026-12-03T00:00:00.000Z',
      seconds: 400,
      tasks: 3,
      cached: 0,
      passed: true,
      longest: [
        { id: '@switchyard/worker#test', seconds: 200 },
        { id: '@switchyard/core#test', seconds: 50 },
        { id: '@switchyard/core#build', seconds: 9 },
      ],
    });
  });

  it('skips partial, cached and unreadable runs', () => {
    expect(readTestSuiteRun('x', summary(`${WHOLE} --affected`, 0, 10))).toBeUndefined();
    expect(readTestSuiteRun('x', summary('turbo run lint --filter=@switchyard/core', 0, 10))).toBeUndefined();
    expect(readTestSuiteRun('x', summary(WHOLE, 0, 10, 4))).toBeUndefined();
    expect(readTestSuiteRun('x', '{not json')).toBeUndefined();
  });

  it('keeps the newest two cold runs and renders them against the 8-minute target', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-test-suite-'));
    const runs = path.join(root, '.turbo/runs');
    await mkdir(runs, { recursive: true });
    await writeFile(path.join(runs, 'old.json'), summary(WHOLE, Date.UTC(2026, 11, 1), 700));
    await writeFile(path.join(runs, 'node20.json'), summary(WHOLE, Date.UTC(2026, 11, 3, 10), 450));
    await writeFile(path.join(runs, 'node24.json'), summary(WHOLE, Date.UTC(2026, 11, 3, 11), 500, 0, 1));
    await writeFile(path.join(runs, 'cached.json'), summary(WHOLE, Date.UTC(2026, 11, 3, 12), 5, 14));
    const machine = (startedAt: number, node: string) =>
      JSON.stringify({ startedAt, node, cores: 2, loadBefore: 0.25, loadAfter: 3.5 });
    // Written by scripts/test.sh seconds before turbo starts; one far too early matches nothing.
    await writeFile(path.join(runs, 'load-1.json'), machine(Date.UTC(2026, 11, 3, 9, 59, 55), 'v20.20.2'));
    await writeFile(path.join(runs, 'load-2.json'), machine(Date.UTC(2026, 11, 3, 10, 50), 'v24.22.3'));
    const result = testSuite(root);
    expect(result.runs.map((run) => run.machine?.node)).toEqual([undefined, 'v20.20.2']);
    expect(result.runs.map((run) => run.file)).toEqual([
      path.join('.turbo/runs', 'node24.json'),
      path.join('.turbo/runs', 'node20.json'),
    ]);
    const section = renderTestSuiteSection(result, 2);
    expect(section).toContain(
      '| 2026-12-03T11:00:00.000Z | not recorded | - | - / - | 8 min 20 s | 3 (0 cached) | failed | missed by 0 min 20 s',
    );
    expect(section).toContain(
      '| 2026-12-03T10:00:00.000Z | v20.20.2 | 2 | 0.25 / 3.50 | 7 min 30 s | 3 (0 cached) | passed | met (7 min 30 s < 8 min 0 s)',
    );
    expect(section).toContain('`@switchyard/worker#test` 200 s, `@switchyard/core#test` 50 s');
  });

  it('says why when there is no cold run', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-test-suite-'));
    const result = testSuite(root);
    expect(result.runs).toEqual([]);
    expect(renderTestSuiteSection(result, 2)).toContain('**Skipped**: no cold run of the whole test command');
  });
});
