import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderTestSuiteSection } from '../report/test-suite-section';
import {
  readTestSuiteRecord,
  readTestSuiteRun,
  type TestSuiteRecord,
  type TurboSummary,
  testSuite,
} from './test-suite';

/** One turbo run's summary: its tasks, each `[id, start (s after startTime), seconds]`. */
function summary(
  startTime: number,
  tasks: Array<[string, number, number]>,
  options: { cached?: number; exitCode?: number } = {},
): TurboSummary {
  const end = Math.max(...tasks.map(([, at, seconds]) => at + seconds));
  return {
    execution: {
      startTime,
      endTime: startTime + end * 1000,
      exitCode: options.exitCode ?? 0,
      cached: options.cached ?? 0,
      attempted: tasks.length,
    },
    tasks: tasks.map(([taskId, at, seconds]) => ({
      taskId,
      execution: { startTime: startTime + at * 1000, endTime: startTime + (at + seconds) * 1000 },
    })),
  };
}

function record(
  startedAt: number,
  seconds: number,
  overrides: Partial<TestSuiteRecord> = {},
): TestSuiteRecord {
  return {
    startedAt,
    endedAt: startedAt + seconds * 1000,
    whole: true,
    status: 0,
    node: 'v20.20.2',
    cores: 2,
    loadBefore: 0.25,
    loadAfter: 3.5,
    ...overrides,
  };
}

/** The turbo summaries of one whole run (the reader takes any number: here three). */
function runSummaries(startedAt: number): TurboSummary[] {
  return [
    summary(startedAt + 1_000, [['@switchyard/core#build', 0, 9]]),
    summary(startedAt + 11_000, [['@switchyard/worker#test', 0, 200]]),
    summary(startedAt + 11_000, [
      ['@switchyard/core#test', 0, 50],
      ['@switchyard/core#lint', 50, 2],
    ]),
  ];
}

let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

describe('the test-suite section', () => {
  it("reads a cold whole run from the script's record and the turbo runs within it", () => {
    const start = Date.UTC(2026, 11, 3);
    const earlier = summary(start - 60_000, [['@switchyard/tools-web#test', 0, 30]]);
    const run = readTestSuiteRun('.turbo/runs/suite-1.json', record(start, 215), [
      earlier,
      ...runSummaries(start),
    ]);
    expect(run).toEqual({
      file: '.turbo/runs/suite-1.json',
      date: '2026-12-03T00:00:00.000Z',
      seconds: 215,
      tasks: 4,
      cached: 0,
      passed: true,
      longest: [
        { id: '@switchyard/worker#test', startedAfter: 11, seconds: 200 },
        { id: '@switchyard/core#test', startedAfter: 11, seconds: 50 },
        { id: '@switchyard/core#build', startedAfter: 1, seconds: 9 },
        { id: '@switchyard/core#lint', startedAfter: 61, seconds: 2 },
      ],
      machine: { node: 'v20.20.2', cores: 2, loadBefore: 0.25, loadAfter: 3.5 },
    });
  });

  it('skips affected-only, cached, failed-to-find and unreadable runs, and marks a failed one', () => {
    const start = Date.UTC(2026, 11, 3);
    expect(readTestSuiteRun('x', record(start, 215, { whole: false }), runSummaries(start))).toBeUndefined();
    const cached = [
      ...runSummaries(start),
      summary(start + 5_000, [['@switchyard/core#lint', 0, 1]], { cached: 1 }),
    ];
    expect(readTestSuiteRun('x', record(start, 215), cached)).toBeUndefined();
    expect(readTestSuiteRun('x', record(start, 215), runSummaries(start + 3_600_000))).toBeUndefined();
    expect(readTestSuiteRecord('{not json')).toBeUndefined();
    expect(readTestSuiteRecord(JSON.stringify({ startedAt: 1, node: 'v20.20.2' }))).toBeUndefined();
    expect(readTestSuiteRun('x', record(start, 215, { status: 1 }), runSummaries(start))?.passed).toBe(false);
    const failedLane = [
      ...runSummaries(start),
      summary(start + 20_000, [['@switchyard/worker#lint', 0, 1]], { exitCode: 1 }),
    ];
    expect(readTestSuiteRun('x', record(start, 215), failedLane)?.passed).toBe(false);
  });

  it('keeps the newest two cold runs and renders them against the 8-minute target', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-test-suite-'));
    const runs = path.join(root, '.turbo/runs');
    await mkdir(runs, { recursive: true });
    const write = (name: string, value: unknown) => writeFile(path.join(runs, name), JSON.stringify(value));
    const runAt = async (
      name: string,
      start: number,
      seconds: number,
      overrides: Partial<TestSuiteRecord> = {},
    ) => {
      await write(`suite-${name}.json`, record(start, seconds, overrides));
      for (const [index, turbo] of runSummaries(start).entries()) await write(`${name}-${index}.json`, turbo);
    };
    await runAt('old', Date.UTC(2026, 11, 1), 700);
    await runAt('node20', Date.UTC(2026, 11, 3, 10), 450);
    await runAt('node24', Date.UTC(2026, 11, 3, 11), 500, { node: 'v24.22.3', status: 1 });
    await runAt('affected', Date.UTC(2026, 11, 3, 12), 60, { whole: false });
    const result = testSuite(root);
    expect(result.runs.map((run) => run.file)).toEqual([
      path.join('.turbo/runs', 'suite-node24.json'),
      path.join('.turbo/runs', 'suite-node20.json'),
    ]);
    const section = renderTestSuiteSection(result, 2);
    expect(section).toContain(
      '| 2026-12-03T11:00:00.000Z | v24.22.3 | 2 | 0.25 / 3.50 | 8 min 20 s | 4 (0 cached) | failed | missed by 0 min 20 s',
    );
    expect(section).toContain(
      '| 2026-12-03T10:00:00.000Z | v20.20.2 | 2 | 0.25 / 3.50 | 7 min 30 s | 4 (0 cached) | passed | met (7 min 30 s < 8 min 0 s)',
    );
    expect(section).toContain(
      '`@switchyard/worker#test` 200 s (at 11 s), `@switchyard/core#test` 50 s (at 11 s)',
    );
  });

  it('says why when there is no cold run', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-test-suite-'));
    const result = testSuite(root);
    expect(result.runs).toEqual([]);
    expect(renderTestSuiteSection(result, 2)).toContain('**Skipped**: no cold run of the whole test command');
  });
});
