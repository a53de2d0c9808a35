import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The README's test command within 8 minutes, cold, on 2 cores (issue target). */
export const TEST_SUITE_TARGET_SECONDS = 8 * 60;

/** One task of a run. */
export interface TestSuiteTask {
  /** turbo's task id (`@switchyard/worker#test`). */
  id: string;
  seconds: number;
}

/** One cold run of the README's test command, read from turbo's run summary. */
export interface TestSuiteRun {
  /** The summary file, relative to the repository. */
  file: string;
  /** When the run started (ISO). */
  date: string;
  /** From its first task's start to its last task's end. */
  seconds: number;
  /** Tasks run, and how many of them replayed a cached result (0 for a cold run). */
  tasks: number;
  cached: number;
  /** Whether every task succeeded. */
  passed: boolean;
  /** The longest tasks, longest first. */
  longest: TestSuiteTask[];
}

/** What the test-suite section reports. */
export interface TestSuiteResult {
  /** The newest cold runs, newest first (at most two: `.ci/run` runs Node 20, then Node 24). */
  runs: TestSuiteRun[];
  /** Set when no cold run of the whole command was found. */
  skipped?: string;
}

interface TurboSummary {
  execution?: {
    command?: string;
    startTime?: number;
    endTime?: number;
    exitCode?: number;
    cached?: number;
    attempted?: number;
  };
  tasks?: Array<{ taskId?: string; execution?: { startTime?: number; endTime?: number } }>;
}

/** The tasks `scripts/test.sh` runs; a run of fewer (`--affected`, `--filter`) is not the whole suite. */
const WHOLE_SUITE = 'run build type-check lint check-package test';

/** Reads one summary: undefined unless it is a whole, cold run of the test command. */
export function readTestSuiteRun(file: string, text: string): TestSuiteRun | undefined {
  let summary: TurboSummary;
  try {
    summary = JSON.parse(text) as TurboSummary;
  } catch {
    return undefined;
  }
  const execution = summary.execution;
  const command = execution?.command ?? '';
  if (!command.includes(WHOLE_SUITE) || command.includes('--affected') || command.includes('--filter')) {
    return undefined;
  }
  if (execution?.startTime === undefined || execution.endTime === undefined) return undefined;
  const cached = execution.cached ?? 0;
  if (cached > 0) return undefined;
  const longest = (summary.tasks ?? [])
    .flatMap((task) =>
      task.taskId !== undefined &&
      task.execution?.startTime !== undefined &&
      task.execution.endTime !== undefined
        ? [{ id: task.taskId, seconds: (task.execution.endTime - task.execution.startTime) / 1000 }]
        : [],
    )
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 8);
  return {
    file,
    date: new Date(execution.startTime).toISOString(),
    seconds: (execution.endTime - execution.startTime) / 1000,
    tasks: execution.attempted ?? summary.tasks?.length ?? 0,
    cached,
    passed: execution.exitCode === 0,
    longest,
  };
}

/**
 * The newest cold runs of the README's test command on this checkout: `scripts/test.sh` runs turbo
 * with `--summarize`, which writes `.turbo/runs/<id>.json`. The bench does not run the suite itself
 * (ten minutes of a 2-core machine); run `pnpm test` on a fresh clone first, as `.ci/run` does.
 */
export function testSuite(repositoryRoot: string): TestSuiteResult {
  const folder = path.join(repositoryRoot, '.turbo/runs');
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    names = [];
  }
  const runs = names
    .flatMap((name) => {
      const run = readTestSuiteRun(
        path.join('.turbo/runs', name),
        readFileSync(path.join(folder, name), 'utf8'),
      );
      return run === undefined ? [] : [run];
    })
    .sort((a, b) => b.date.localeCompare(a.date))
    .slice(0, 2);
  return runs.length > 0
    ? { runs }
    : {
        runs,
        skipped:
          'no cold run of the whole test command in .turbo/runs (run `pnpm test` on a fresh clone, then this suite)',
      };
}
