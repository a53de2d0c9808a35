import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { startFakeResponsesServer } from '@switchyard/testkit';
import { daemonJson, listTurns } from '../daemon/daemon-requests';
import { percentile } from '../daemon/daemon-stats';
import { listFilesScript } from '../daemon/list-files-script';
import { type BurstAnswer, postBurst } from '../daemon/post-burst';
import { type DaemonDatabase, startServeDaemon } from '../daemon/serve-daemon';
import { startThrowawayPostgres } from '../daemon/throwaway-postgres';
import { heading, machineNow, report } from '../measure';

/** Issue 37's target: every request of the burst answered `202` or `503`, none reset. */
export const REQUEST_BURST_TARGET = { requests: 2000 } as const;

/** One burst against one fresh `serve` process. */
export interface RequestBurstRow {
  /** `pglite` (embedded, the default) or `postgres` (a throw-away cluster). */
  backend: 'pglite' | 'postgres';
  /** The open-file limit the process was started under (`prlimit`), or undefined for the machine's own. */
  imposedFileLimit?: number;
  /** The open-file limit the process had (`/proc/PID/limits`, soft). */
  openFileLimit: number;
  /** `serve.maxWaitingWork` as the process took it (its log says when the file limit lowered it). */
  maxWaitingWork: number;
  /** POSTs sent at once. */
  requests: number;
  /** Answers by status (`202`, `503`, ...). */
  statuses: Record<string, number>;
  /** `503`s that carried a `Retry-After`. */
  shedWithRetryAfter: number;
  /** Requests without an answer, by error (`ECONNRESET`, `EPIPE`, `deadline`, ...). */
  errors: Record<string, number>;
  /** Answer times from the burst's start: median, 99th percentile and the last, ms (answered requests). */
  answerMs: { p50: number; p99: number; last: number };
  /** Turns the daemon recorded for the burst (each `202` names one; a `503` none). */
  turnsRecorded: number;
  /** Of those, turns that ended `completed`. */
  turnsCompleted: number;
  /** The most files the process had open during the burst (`/proc/PID/fd`, sampled every 20 ms). */
  peakOpenFiles: number;
  /** The daemon's log lines about shedding and dropped connections. */
  log: string[];
  /** What did not add up (a `202` without its turn, turns not completed, ...). */
  problems: string[];
}

/** What the request-burst benchmark found. */
export interface RequestBurstResult {
  date: string;
  node: string;
  cores: number;
  /** 1-minute load average before and after. */
  load: [before: number, after: number];
  /** `/proc/sys/net/core/somaxconn`: the kernel's cap on a listen backlog. */
  somaxconn: number | undefined;
  /** Tool calls per turn (one model response each), then a text answer. */
  calls: number;
  rows: RequestBurstRow[];
  /** Backends or limits that did not run, and why. */
  skipped: string[];
}

/** Options of the request-burst benchmark. */
export interface RequestBurstOptions {
  /** POSTs at once (default 2000). */
  requests?: number;
  /** Backends (default both). */
  backends?: ReadonlyArray<'pglite' | 'postgres'>;
  /**
   * Open-file limits to start `serve` under besides the machine's own (`undefined`), with
   * `prlimit`; default [undefined, 1024]: 1024 is a common default of hosts and containers.
   */
  fileLimits?: ReadonlyArray<number | undefined>;
  /** Tool calls per turn (default 5, the busy daemon's turn). */
  calls?: number;
}

const HOME_FILES: Record<string, string> = Object.fromEntries(
  Array.from({ length: 8 }, (_, index) => [`note-${index}.md`, `# Note ${index}\n\nSome text.\n`]),
);

function readSomaxconn(): number | undefined {
  try {
    return Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

/** The soft open-file limit of process `pid`. */
function openFileLimitOf(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('Max open files'));
    return Number(line?.slice('Max open files'.length).trim().split(/\s+/)[0]);
  } catch {
    return Number.NaN;
  }
}

function hasPrlimit(): boolean {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Counts of `values` by key. */
function countBy<T>(values: readonly T[], key: (value: T) => string | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) {
    const name = key(value);
    if (name !== undefined) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** Waits until the daemon reports no running turn; false after `timeoutMs`. */
async function waitUntilIdle(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const health: { runningTurns: number } = await daemonJson(`${url}/healthz`);
    if (health.runningTurns === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** One burst on a fresh `serve` process of `database`, under `fileLimit` if given. */
async function burstOnce(
  database: DaemonDatabase,
  baseURL: string,
  requests: number,
  fileLimit: number | undefined,
): Promise<RequestBurstRow> {
  const daemon = await startServeDaemon({
    baseURL,
    database,
    homeFiles: HOME_FILES,
    ...(fileLimit === undefined ? {} : { openFileLimit: fileLimit }),
  });
  const problems: string[] = [];
  try {
    const warm: { id: string } = await daemonJson(`${daemon.url}/v1/turns`, {
      body: { prompt: 'warm-up turn' },
      expect: 202,
    });
    if (!(await waitUntilIdle(daemon.url, 60_000))) problems.push('the warm-up turn did not end within 60 s');
    let peakOpenFiles = 0;
    const sampler = setInterval(() => {
      try {
        peakOpenFiles = Math.max(peakOpenFiles, readdirSync(`/proc/${daemon.pid}/fd`).length);
      } catch {
        // Gone: the run's own checks say so.
      }
    }, 20);
    let answers: BurstAnswer[];
    try {
      answers = await postBurst({
        url: `${daemon.url}/v1/turns`,
        count: requests,
        body: (index) => ({ prompt: `burst turn ${index}` }),
      });
    } finally {
      clearInterval(sampler);
    }
    if (!(await waitUntilIdle(daemon.url, 300_000)))
      problems.push('turns were still running 300 s after the burst');
    const turns = (await listTurns(daemon.url)).filter((turn) => turn.id !== warm.id);
    const accepted = answers.filter((answer) => answer.status === 202);
    const acceptedIds = new Set(
      accepted.map((answer) => (JSON.parse(answer.body ?? '{}') as { id?: string }).id ?? ''),
    );
    const recordedIds = new Set(turns.map((turn) => turn.id));
    const unrecorded = [...acceptedIds].filter((id) => !recordedIds.has(id)).length;
    if (unrecorded > 0) problems.push(`${unrecorded} turn(s) answered 202 but not recorded`);
    if (turns.length !== accepted.length) {
      problems.push(
        `${turns.length} turns recorded for ${accepted.length} answers 202 (a 503 must record none)`,
      );
    }
    const completed = turns.filter((turn) => turn.status === 'completed').length;
    if (completed < turns.length)
      problems.push(`${turns.length - completed} recorded turn(s) did not complete`);
    const answered = answers.filter((answer) => answer.status !== undefined).map((answer) => answer.ms);
    const log = daemon
      .log()
      .split('\n')
      .filter((line) =>
        /bound of waiting work|answering \d+ with 503|connection\(s\) open|unanswered|maxWaitingWork is/.test(
          line,
        ),
      );
    const loweredTo = /serve\.maxWaitingWork is (\d+)/.exec(daemon.log())?.[1];
    return {
      backend: database.kind,
      ...(fileLimit === undefined ? {} : { imposedFileLimit: fileLimit }),
      openFileLimit: openFileLimitOf(daemon.pid),
      maxWaitingWork: loweredTo === undefined ? 1000 : Number(loweredTo),
      requests,
      statuses: countBy(answers, (answer) =>
        answer.status === undefined ? undefined : String(answer.status),
      ),
      shedWithRetryAfter: answers.filter(
        (answer) => answer.status === 503 && /^\d+$/.test(answer.retryAfter ?? ''),
      ).length,
      errors: countBy(answers, (answer) => answer.error),
      answerMs: {
        p50: percentile(answered, 50),
        p99: percentile(answered, 99),
        last: answered.length === 0 ? Number.NaN : Math.max(...answered),
      },
      turnsRecorded: turns.length,
      turnsCompleted: completed,
      peakOpenFiles,
      log,
      problems,
    };
  } finally {
    await daemon.stop();
  }
}

/**
 * Issue 37's burst: `requests` `POST /v1/turns` sent at once, each on a connection of its own, to
 * one `switchyard serve` child process (the built CLI, default settings, the busy daemon's turn)
 * per backend, on the machine's own open-file limit and under each of `fileLimits`. Reports the
 * answers by status, the requests that got no answer by error (a reset is `ECONNRESET`), and checks
 * that every `202` has its turn recorded and a `503` none.
 */
export async function requestBurst(options: RequestBurstOptions = {}): Promise<RequestBurstResult> {
  const requests = options.requests ?? REQUEST_BURST_TARGET.requests;
  const calls = options.calls ?? 5;
  const before = os.loadavg()[0] ?? Number.NaN;
  const fake = await startFakeResponsesServer({ record: false, script: listFilesScript(calls) });
  heading(`Request burst: ${requests} POST /v1/turns at once (load ${before.toFixed(1)})`);
  const rows: RequestBurstRow[] = [];
  const skipped: string[] = [];
  const limits = (options.fileLimits ?? [undefined, 1024]).filter((limit) => {
    if (limit === undefined || hasPrlimit()) return true;
    skipped.push(`open-file limit ${limit}: no prlimit (util-linux) on this machine`);
    return false;
  });
  try {
    for (const backend of options.backends ?? (['pglite', 'postgres'] as const)) {
      for (const limit of limits) {
        // A fresh database for each burst (a throw-away cluster on PostgreSQL), as a fresh folder is on PGlite.
        let database: DaemonDatabase = { kind: 'pglite' };
        let stopPostgres: (() => Promise<void>) | undefined;
        if (backend === 'postgres') {
          const postgres = await startThrowawayPostgres();
          if ('skipped' in postgres) {
            skipped.push(`PostgreSQL: ${postgres.skipped}`);
            report('postgres', 'skipped', postgres.skipped);
            break;
          }
          database = { kind: 'postgres', url: postgres.url };
          stopPostgres = postgres.stop;
        }
        try {
          const row = await burstOnce(database, fake.baseURL, requests, limit);
          rows.push(row);
          const errors = Object.entries(row.errors)
            .map(([code, count]) => `${count} ${code}`)
            .join(', ');
          report(
            `${backend}, open files ${row.openFileLimit}${limit === undefined ? '' : ' (imposed)'}`,
            Object.entries(row.statuses)
              .map(([status, count]) => `${count}x${status}`)
              .join(' '),
            `${errors === '' ? 'no errors' : errors}; last answer ${(row.answerMs.last / 1000).toFixed(1)} s; peak files ${row.peakOpenFiles}`,
          );
        } finally {
          await stopPostgres?.();
        }
      }
    }
  } finally {
    await fake.close();
  }
  return {
    ...machineNow(before),
    somaxconn: readSomaxconn(),
    calls,
    rows,
    skipped,
  };
}
