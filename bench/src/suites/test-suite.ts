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
  /** What `scripts/test.sh` recorded beside the summary: Node, cores, 1-minute load average before and after. */
  machine?: TestSuiteMachine;
}

/** The `.turbo/runs/load-<ms>.json` file `scripts/test.sh` writes beside turbo's summary. */
export interface TestSuiteMachine {
  /** When the script started turbo (ms since the epoch). */
  startedAt: number;
  node: string;
  cores: number | null;
  loadBefore: number | null;
  loadAfter: number | null;
}

/** The machine record written just before a run (turbo starts within a minute of it). */
export function machineOf(
  run: { date: string },
  machines: readonly TestSuiteMachine[],
): TestSuiteMachine | undefined {
  const started = Date.parse(run.date);
  return machines
    .filter((machine) => machine.startedAt <= started && started - machine.startedAt < 60_000)
    .sort((a, b) => b.startedAt - a.startedAt)[0];
}

function readMachine(text: string): TestSuiteMachine | undefined {
  try {
    const value = JSON.parse(text) as Partial<TestSuiteMachine>;
    if (typeof value.startedAt !== 'number' || typeof value.node !== 'string') return undefined;
    const numberOrNull = (field: unknown) => (typeof field === 'number' ? field : null);
    return {
      startedAt: value.startedAt,
      node: value.node,
      cores: numberOrNull(value.cores),
      loadBefore: numberOrNull(value.loadBefore),
      loadAfter: numberOrNull(value.loadAfter),
    };
  } catch {
    return undefined;
  }
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
  const machines = names
    .filter((name) => name.startsWith('load-'))
    .flatMap((name) => readMachine(readFileSync(path.join(folder, name), 'utf8')) ?? []);
  const runs = names
    .filter((name) => !name.startsWith('load-'))
    .flatMap((name) => {
      const run = readTestSuiteRun(
        path.join('.turbo/runs', name),
        readFileSync(path.join(folder, name), 'utf8'),
      );
      if (run === undefined) return [];
      const machine = machineOf(run, machines);
      return [machine === undefined ? run : { ...run, machine }];
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
