// Everything the daemon benchmarks need to run real `switchyard serve` processes: the built CLI as a
// child process on a fresh folder with a configuration file (as apps/worker's serve-process fixture
// starts it), its RSS from /proc, /healthz polling, its turn records, and a throw-away PostgreSQL
// cluster started the way scripts/test-postgres.sh starts one.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeRequest, FakeResponse } from '@switchyard/testkit';
import { parseProcStat, parseVmRss } from './daemon-stats';

/** The worker's built CLI (`@switchyard/worker` is a workspace dev dependency: turbo builds it before `bench`). */
export const CLI_PATH = fileURLToPath(
  new URL('../../node_modules/@switchyard/worker/dist/cli.js', import.meta.url),
);
const TEST_POSTGRES = fileURLToPath(new URL('../../../scripts/test-postgres.sh', import.meta.url));
const LOOP_DELAY_MONITOR = fileURLToPath(new URL('./loop-delay-monitor.mjs', import.meta.url));
const HEAP_MONITOR = fileURLToPath(new URL('./heap-monitor.mjs', import.meta.url));

let clockTicksPerSecond: number | undefined;
/** The kernel's clock ticks a second (`getconf CLK_TCK`), the unit of `/proc` CPU times. */
function ticksPerSecond(): number {
  clockTicksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clockTicksPerSecond;
}

/** A `/proc` stat file's user plus system CPU time, ms; NaN once the process is gone. */
function statCpuMs(file: string): number {
  try {
    const stat = parseProcStat(readFileSync(file, 'utf8'));
    return stat === undefined ? Number.NaN : (stat.cpuTicks * 1000) / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

/** CPU time of a whole process (every thread: libuv's pool, V8's helpers, worker threads), ms. */
export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/**
 * A process's main thread (a Node process's JavaScript thread) from `/proc/PID/task/PID/schedstat`,
 * ms: the time it ran on a core, and the time it was ready to run but waited for one (on a machine
 * whose cores are all busy, the run queue). NaN for both once the process is gone.
 */
export function mainThreadSchedule(pid: number): { runMs: number; waitMs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
      .trim()
      .split(' ')
      .map(Number);
    if (run === undefined || wait === undefined || !Number.isFinite(run) || !Number.isFinite(wait)) {
      return { runMs: Number.NaN, waitMs: Number.NaN };
    }
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return { runMs: Number.NaN, waitMs: Number.NaN };
  }
}

/** What the daemon's event loop was late by since the previous reading (see `loop-delay-monitor.mjs`). */
export interface LoopDelay {
  /** Samples taken (one per 10 ms timer wake-up, fewer while the loop was busy). */
  samples: number;
  /** Median delay, ms (NaN without a sample). */
  p50Ms: number;
  /** 99th percentile delay, ms. */
  p99Ms: number;
  /** Longest delay, ms. */
  maxMs: number;
}

/** The agent every benchmark daemon serves. */
export const BENCH_AGENT = 'bench';

/**
 * The fake model of a busy-daemon turn: `calls` model responses that each ask for one `list_files`
 * of the home, then a text answer. Stateless (it counts the outputs already in the request), so
 * any number of turns can share one server.
 */
export function listFilesScript(calls: number): (request: FakeRequest) => FakeResponse {
  return (request) =>
    request.functionCallOutputs.length < calls
      ? { functionCalls: [{ name: 'list_files', arguments: { pattern: '*' }, chunks: 1 }] }
      : { text: 'The home holds the notes.', textChunks: 1 };
}

/** Where the daemon keeps its state: embedded PGlite in its folder, or a PostgreSQL URL. */
export type DaemonDatabase = { kind: 'pglite' } | { kind: 'postgres'; url: string };

/** Options of `startServeDaemon`. */
export interface ServeDaemonOptions {
  /** The fake Responses server's `/v1` URL. */
  baseURL: string;
  database: DaemonDatabase;
  /** More `serve` settings of the configuration file (heartbeatMs, pollSeconds, ...). */
  serve?: Record<string, unknown>;
  /** Options for `node` itself, before the CLI's path (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArguments?: readonly string[];
  /** Files written into the agent's home before the process starts (name -> text). */
  homeFiles?: Record<string, string>;
  /** Preload the event-loop delay monitor (`loop-delay-monitor.mjs`), for `loopDelay()`. */
  loopDelay?: boolean;
  /**
   * Start the process under this open-file limit (soft and hard, `prlimit --nofile`), as a host or
   * container with a low `ulimit -n` would. Default: this process's own.
   */
  openFileLimit?: number;
  /** Preload the heap monitor (`heap-monitor.mjs`, with `--expose-gc`), for `liveHeap()`; not with `loopDelay`. */
  heap?: boolean;
}

/** What the daemon's main thread holds after a full garbage collection (`heap-monitor.mjs`). */
export interface LiveHeap {
  /** The V8 heap in use, bytes. */
  heapUsed: number;
  /** Memory outside the heap that V8 objects hold (buffers), bytes. */
  external: number;
}

/** A running `switchyard serve` child process. */
export interface ServeDaemon {
  /** The HTTP API's URL. */
  readonly url: string;
  /** `/healthz` on the health listener (`serve.healthPort` set in `serve`), undefined without one. */
  readonly healthUrl: string | undefined;
  /** The child's process id (the node process itself: its /proc entry is the daemon's). */
  readonly pid: number;
  /** The agent's home (the folder `list_files` lists). */
  readonly home: string;
  /** Everything the process wrote to stderr. */
  log(): string;
  /** The child's resident memory now, bytes (undefined once it is gone). */
  rss(): number | undefined;
  /**
   * The event-loop delay since the previous call (or since start), then starts over: the monitor
   * writes it on SIGUSR2. Rejects unless started with `loopDelay`, or when no answer comes in 30 s.
   */
  loopDelay(): Promise<LoopDelay>;
  /**
   * A full garbage collection of the daemon's main thread, then what it still holds. Rejects unless
   * started with `heap`, or when no answer comes in 30 s.
   */
  liveHeap(): Promise<LiveHeap>;
  /** SIGTERM, then waits for the exit (SIGKILL after 30 s) and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts `switchyard serve --agent bench --port 0` from the built CLI in a fresh temporary folder
 * with a `switchyard.config.json` (model `fake-model` without retries, the default categories, the
 * given database and `serve` settings), against the fake model, and waits until it listens.
 *
 * Contract: rejects with the process's log if it exits before listening or takes over 120 s.
 */
export async function startServeDaemon(options: ServeDaemonOptions): Promise<ServeDaemon> {
  if (!existsSync(CLI_PATH)) {
    throw new Error(
      `${CLI_PATH} is missing: build the worker first (pnpm build, or turbo run build --filter=@switchyard/worker...)`,
    );
  }
  if (options.loopDelay === true && options.heap === true) {
    throw new Error('startServeDaemon: loopDelay and heap both answer SIGUSR2; use one');
  }
  const directory = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-serve-'));
  const home = path.join(directory, '.switchyard', 'homes', BENCH_AGENT);
  await mkdir(home, { recursive: true });
  for (const [name, text] of Object.entries(options.homeFiles ?? {})) {
    await writeFile(path.join(home, name), text);
  }
  const config = path.join(directory, 'switchyard.config.json');
  const loopDelayFile = path.join(directory, 'loop-delay.json');
  const heapFile = path.join(directory, 'heap.json');
  await writeFile(
    config,
    JSON.stringify({
      model: { name: 'fake-model', maxRetries: 0 },
      database:
        options.database.kind === 'postgres'
          ? { url: options.database.url }
          : { dataDir: path.join(directory, '.switchyard', 'db') },
      ...(options.serve === undefined ? {} : { serve: options.serve }),
    }),
  );
  const limit =
    options.openFileLimit === undefined
      ? []
      : [`--nofile=${options.openFileLimit}:${options.openFileLimit}`, '--', process.execPath];
  const child: ChildProcess = spawn(
    options.openFileLimit === undefined ? process.execPath : 'prlimit',
    [
      ...limit,
      ...(options.nodeArguments ?? []),
      ...(options.loopDelay === true ? [`--import=${LOOP_DELAY_MONITOR}`] : []),
      ...(options.heap === true ? ['--expose-gc', `--import=${HEAP_MONITOR}`] : []),
      CLI_PATH,
      'serve',
      '--config',
      config,
      '--agent',
      BENCH_AGENT,
      '--port',
      '0',
    ],
    {
      cwd: directory,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        OPENAI_BASE_URL: options.baseURL,
        OPENAI_API_KEY: 'bench',
        ...(options.loopDelay === true ? { BENCH_LOOP_DELAY_FILE: loopDelayFile } : {}),
        ...(options.heap === true ? { BENCH_HEAP_FILE: heapFile } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not listen within 120 s:\n${log}`)), 120_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(log)?.[1];
      // With a health listener, its line comes right after the API's: wait for both.
      const healthWanted = options.serve?.healthPort !== undefined;
      if (found !== undefined && (!healthWanted || /health checks on http:\/\/\S+\n/.test(log))) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${String(code)}) before listening:\n${log}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
    throw error;
  });
  const pid = child.pid ?? -1;
  let loopDelayReadings = 0;
  let heapReadings = 0;
  return {
    url,
    healthUrl: /health checks on (http:\/\/\S+)/.exec(log)?.[1],
    pid,
    home,
    log: () => log,
    rss: () => {
      try {
        return parseVmRss(readFileSync(`/proc/${pid}/status`, 'utf8'));
      } catch {
        return undefined;
      }
    },
    loopDelay: async () => {
      if (options.loopDelay !== true)
        throw new Error('loopDelay(): the daemon was started without the monitor');
      loopDelayReadings += 1;
      child.kill('SIGUSR2');
      const deadline = Date.now() + 30_000;
      for (;;) {
        const seen = await readFile(loopDelayFile, 'utf8').then(
          (text) =>
            JSON.parse(text) as {
              sequence: number;
              samples: number;
              p50Ms: number | null;
              p99Ms: number | null;
              maxMs: number | null;
            },
          () => undefined,
        );
        if (seen !== undefined && seen.sequence >= loopDelayReadings) {
          return {
            samples: seen.samples,
            p50Ms: seen.p50Ms ?? Number.NaN,
            p99Ms: seen.p99Ms ?? Number.NaN,
            maxMs: seen.maxMs ?? Number.NaN,
          };
        }
        if (Date.now() > deadline) throw new Error(`the loop-delay monitor did not answer in 30 s:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    liveHeap: async () => {
      if (options.heap !== true) throw new Error('liveHeap(): the daemon was started without the monitor');
      heapReadings += 1;
      child.kill('SIGUSR2');
      const deadline = Date.now() + 30_000;
      for (;;) {
        const seen = await readFile(heapFile, 'utf8').then(
          (text) => JSON.parse(text) as { sequence: number; collected: boolean } & LiveHeap,
          () => undefined,
        );
        if (seen !== undefined && seen.sequence >= heapReadings) {
          if (!seen.collected) throw new Error('liveHeap(): the daemon has no gc() (--expose-gc)');
          return { heapUsed: seen.heapUsed, external: seen.external };
        }
        if (Date.now() > deadline) throw new Error(`the heap monitor did not answer in 30 s:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A JSON request to a daemon's API; rejects on a status other than `expect`. */
export async function daemonJson<T>(
  url: string,
  init: { method?: string; body?: unknown; expect?: number } = {},
): Promise<T> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    ...(init.body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  if (response.status !== (init.expect ?? 200)) {
    throw new Error(`${init.method ?? 'GET'} ${url}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as T;
}

/** A turn record as `GET /v1/turns` answers it (the fields the benchmarks read). */
export interface TurnRecord {
  id: string;
  status: string;
  createdAt: string;
  endedAt?: string;
  iterations: number;
  error?: string;
}

/** Every recorded turn of the daemon's agent, paging through `GET /v1/turns` 100 at a time. */
export async function listTurns(url: string): Promise<TurnRecord[]> {
  const turns: TurnRecord[] = [];
  let cursor: string | undefined;
  do {
    const page: { turns: TurnRecord[]; nextCursor?: string } = await daemonJson(
      `${url}/v1/turns?limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    turns.push(...page.turns);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return turns;
}

/** What polling `/healthz` every `intervalMs` saw. */
export interface HealthPolling {
  /** Each answer's latency, ms. */
  latencies: number[];
  /** The most `runningTurns` any answer reported. */
  mostRunning: number;
  /** `runningTurns` of the latest answer. */
  running: number;
  /** Stops polling; resolves once the request in flight (if any) is answered. */
  stop(): Promise<void>;
}

/**
 * Polls `GET /healthz` every `intervalMs` (one request at a time: a slow answer delays the next
 * poll rather than piling requests up), recording each answer's latency and `runningTurns`.
 */
export function pollHealth(url: string, intervalMs = 50): HealthPolling {
  let stopped = false;
  const state: HealthPolling = {
    latencies: [],
    mostRunning: 0,
    running: 0,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
  const loop = (async () => {
    while (!stopped) {
      const start = performance.now();
      try {
        const body: { runningTurns: number } = await daemonJson(`${url}/healthz`);
        state.latencies.push(performance.now() - start);
        state.running = body.runningTurns;
        state.mostRunning = Math.max(state.mostRunning, body.runningTurns);
      } catch {
        // A refused poll is not a latency sample; the run's own checks report a dead daemon.
      }
      const wait = intervalMs - (performance.now() - start);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return state;
}

/** Samples a process's RSS every `intervalMs`; `stop()` returns the highest sample. */
export function sampleRss(read: () => number | undefined, intervalMs = 100): { stop(): number } {
  let peak = read() ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, read() ?? 0);
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, read() ?? 0);
    },
  };
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A throw-away PostgreSQL cluster. */
export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  /** Whether `pg_stat_statements` is preloaded (and created in the `postgres` database). */
  readonly statements: boolean;
  /**
   * CPU time of the server so far, ms: the postmaster and its children (backends, background
   * workers) alive now; a backend that has exited no longer counts, so read it around work done
   * on connections that stay open.
   */
  cpuMs(): number;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts a throw-away PostgreSQL cluster on a free port with `scripts/test-postgres.sh` (as the
 * test suite does: as the `postgres` user when run as root, fsync off), or returns the reason it
 * cannot (no server binaries). With `statements`, the cluster is restarted with
 * `shared_preload_libraries=pg_stat_statements` when the extension is installed.
 */
export async function startThrowawayPostgres(
  options: { statements?: boolean } = {},
): Promise<ThrowawayPostgres | { skipped: string }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-pg-'));
  const port = await freePort();
  let url: string;
  try {
    url = execFileSync('bash', [TEST_POSTGRES, 'start', directory, String(port)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    return { skipped: stderr || (error as Error).message };
  }
  const stop = async () => {
    try {
      execFileSync('bash', [TEST_POSTGRES, 'stop', directory], { stdio: 'ignore' });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  };
  let statements = false;
  if (options.statements === true) {
    // The script takes no server settings: append the preload to the cluster's own configuration
    // and restart it (pg_ctl reuses the options it was started with).
    const conf = path.join(directory, 'data', 'postgresql.conf');
    try {
      const asOwner = (command: string) =>
        process.getuid?.() === 0
          ? execFileSync('su', ['postgres', '-s', '/bin/bash', '-c', command], { stdio: 'ignore' })
          : execFileSync('bash', ['-c', command], { stdio: 'ignore' });
      asOwner(
        `echo "shared_preload_libraries = 'pg_stat_statements'" >> '${conf}' && pg_ctl -D '${path.join(directory, 'data')}' -w restart -m fast >/dev/null`,
      );
      statements = true;
    } catch {
      statements = false;
    }
  }
  const cpuMs = () => {
    let postmaster: number;
    try {
      postmaster = Number(
        readFileSync(path.join(directory, 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
      );
    } catch {
      return Number.NaN;
    }
    let total = processCpuMs(postmaster);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = parseProcStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
        if (stat?.ppid === postmaster) total += (stat.cpuTicks * 1000) / ticksPerSecond();
      } catch {
        // Gone since the listing.
      }
    }
    return total;
  };
  return { url, statements, cpuMs, stop };
}
