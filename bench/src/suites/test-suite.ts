import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The README's test command within 8 minutes, cold, on 2 cores (issue target). */
export const TEST_SUITE_TARGET_SECONDS = 8 * 60;

/** One task of a run. */
export interface TestSuiteTask {
  /** turbo's task id (`@switchyard/worker#test`). */
  id: string;
  /** When it started, in seconds from the start of the run. */
  startedAfter: number;
  seconds: number;
}

/** One cold run of the README's test command: the script's record with turbo's summaries. */
export interface TestSuiteRun {
  /** The script's record of the run, relative to the repository. */
  file: string;
  /** When the run started (ISO). */
  date: string;
  /** From the script starting turbo to the last turbo run ending. */
  seconds: number;
  /** Tasks run, and how many of them replayed a cached result (0 for a cold run). */
  tasks: number;
  cached: number;
  /** Whether every task succeeded. */
  passed: boolean;
  /** The longest tasks, longest first. */
  longest: TestSuiteTask[];
  /** The machine, as the script recorded it. */
  machine: TestSuiteMachine;
}

/** What the run's record (`.turbo/runs/suite-<ms>.json`, written by `scripts/test.sh`) says of the machine. */
export interface TestSuiteMachine {
  node: string;
  cores: number | null;
  /** The 1-minute load average before the run (what else the machine was doing) and after it. */
  loadBefore: number | null;
  loadAfter: number | null;
}

/** The record `scripts/test.sh` writes when a run ends. */
export interface TestSuiteRecord extends TestSuiteMachine {
  /** When the script started turbo and when the last turbo run ended (ms since the epoch). */
  startedAt: number;
  endedAt: number;
  /** False for a run of the packages affected by a change (`SWITCHYARD_BASE_REF`). */
  whole: boolean;
  /** The script's exit code. */
  status: number;
}

/** Reads a run's record; undefined for anything else. */
export function readTestSuiteRecord(text: string): TestSuiteRecord | undefined {
  let value: Partial<TestSuiteRecord>;
  try {
    value = JSON.parse(text) as Partial<TestSuiteRecord>;
  } catch {
    return undefined;
  }
  const { startedAt, endedAt, whole, status, node } = value;
  if (
    typeof startedAt !== 'number' ||
    typeof endedAt !== 'number' ||
    typeof whole !== 'boolean' ||
    typeof status !== 'number' ||
    typeof node !== 'string'
  ) {
    return undefined;
  }
  const numberOrNull = (field: unknown) => (typeof field === 'number' ? field : null);
  return {
    startedAt,
    endedAt,
    whole,
    status,
    node,
    cores: numberOrNull(value.cores),
    loadBefore: numberOrNull(value.loadBefore),
    loadAfter: numberOrNull(value.loadAfter),
  };
}

/** What the test-suite section reports. */
export interface TestSuiteResult {
  /** The newest cold runs, newest first (at most two: `.ci/run` runs Node 20, then Node 24). */
  runs: TestSuiteRun[];
  /** Set when no cold run of the whole command was found. */
  skipped?: string;
}

/** The parts of turbo's run summary (`--summarize`) read here. */
export interface TurboSummary {
  execution?: {
    startTime?: number;
    endTime?: number;
    exitCode?: number;
    cached?: number;
    attempted?: number;
  };
  tasks?: Array<{ taskId?: string; execution?: { startTime?: number; endTime?: number } }>;
}

/**
 * One run from its record and turbo's summaries: those that started within the run are its (one
 * today; the script may run turbo more than once). Undefined unless it is a whole run in which no
 * task replayed a cached result.
 */
export function readTestSuiteRun(
  file: string,
  record: TestSuiteRecord,
  summaries: readonly TurboSummary[],
): TestSuiteRun | undefined {
  if (!record.whole) return undefined;
  const own = summaries.filter((summary) => {
    const started = summary.execution?.startTime;
    return started !== undefined && started >= record.startedAt && started <= record.endedAt;
  });
  if (own.length === 0) return undefined;
  const cached = own.reduce((sum, summary) => sum + (summary.execution?.cached ?? 0), 0);
  if (cached > 0) return undefined;
  const longest = own
    .flatMap((summary) => summary.tasks ?? [])
    .flatMap((task) =>
      task.taskId !== undefined &&
      task.execution?.startTime !== undefined &&
      task.execution.endTime !== undefined
        ? [
            {
              id: task.taskId,
              startedAfter: (task.execution.startTime - record.startedAt) / 1000,
              seconds: (task.execution.endTime - task.execution.startTime) / 1000,
            },
          ]
        : [],
    )
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 8);
  const { node, cores, loadBefore, loadAfter } = record;
  return {
    file,
    date: new Date(record.startedAt).toISOString(),
    seconds: (record.endedAt - record.startedAt) / 1000,
    tasks: own.reduce(
      (sum, summary) => sum + (summary.execution?.attempted ?? summary.tasks?.length ?? 0),
      0,
    ),
    cached,
    passed: record.status === 0 && own.every((summary) => summary.execution?.exitCode === 0),
    longest,
    machine: { node, cores, loadBefore, loadAfter },
  };
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * The newest cold runs of the README's test command on this checkout: `scripts/test.sh` runs turbo
 * with `--summarize`, which writes `.turbo/runs/<id>.json`, and writes its own record of the run,
 * `.turbo/runs/suite-<ms>.json`. The bench does not run the suite itself (eight minutes of a 2-core
 * machine); run `pnpm test` on a fresh clone first, as `.ci/run` does.
 */
export function testSuite(repositoryRoot: string): TestSuiteResult {
  const folder = path.join(repositoryRoot, '.turbo/runs');
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    names = [];
  }
  const summaries = names
    .filter((name) => !name.startsWith('suite-') && !name.startsWith('load-'))
    .flatMap((name) => readJson<TurboSummary>(path.join(folder, name)) ?? []);
  const runs = names
    .filter((name) => name.startsWith('suite-'))
    .flatMap((name) => {
      const record = readTestSuiteRecord(readFileSync(path.join(folder, name), 'utf8'));
      const run = record && readTestSuiteRun(path.join('.turbo/runs', name), record, summaries);
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
