// Runs real `switchyard serve` processes for the daemon benchmarks: the built CLI as a child
// process on a fresh folder with a configuration file (as apps/worker's serve-process fixture starts
// it), its RSS from /proc, and the readings of the monitors preloaded into it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseVmRss } from './daemon-stats';
import { readMonitor } from './read-monitor';

/** The worker's built CLI (`@switchyard/worker` is a workspace dev dependency: turbo builds it before `bench`). */
export const CLI_PATH = fileURLToPath(
  new URL('../../node_modules/@switchyard/worker/dist/cli.js', import.meta.url),
);
const LOOP_DELAY_MONITOR = fileURLToPath(new URL('./loop-delay-monitor.mjs', import.meta.url));
const HEAP_MONITOR = fileURLToPath(new URL('./heap-monitor.mjs', import.meta.url));

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

/** The budgets of a benchmark daemon's agent unless a suite says otherwise (see `ServeDaemonOptions.budgets`). */
export const BENCH_BUDGETS = { turnsAtOnce: 10_000, tokensPerDay: Number.MAX_SAFE_INTEGER } as const;

/** The agent every benchmark daemon serves. */
export const BENCH_AGENT = 'bench';

/** Where the daemon keeps its state: embedded PGlite in its folder, or a PostgreSQL URL. */
export type DaemonDatabase = { kind: 'pglite' } | { kind: 'postgres'; url: string };

/** Options of `startServeDaemon`. */
export interface ServeDaemonOptions {
  /** The fake Responses server's `/v1` URL. */
  baseURL: string;
  database: DaemonDatabase;
  /** More `serve` settings of the configuration file (heartbeatMs, pollSeconds, ...). */
  serve?: Record<string, unknown>;
  /**
   * The agent's budgets (`budgets` of the configuration file). Default: 10,000 turns at once and no
   * daily token limit to speak of: the benchmarks measure the daemon, not the default limits of 16
   * turns of one agent at once and 50 million tokens a day (a long run spends that).
   */
  budgets?: Record<string, unknown>;
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

/** The daemon's temporary folder and the files in it. */
interface ServeFolder {
  /** The folder itself (the process's working directory), removed when it stops. */
  directory: string;
  /** The agent's home. */
  home: string;
  /** `switchyard.config.json`. */
  config: string;
  /** Where the loop-delay monitor writes its readings. */
  loopDelayFile: string;
  /** Where the heap monitor writes its readings. */
  heapFile: string;
}

/**
 * A fresh temporary folder with the agent's home (its files written) and a `switchyard.config.json`:
 * model `fake-model` without retries, the default categories, the given database and `serve` settings.
 */
async function prepareServeFolder(options: ServeDaemonOptions): Promise<ServeFolder> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-serve-'));
  const home = path.join(directory, '.switchyard', 'homes', BENCH_AGENT);
  await mkdir(home, { recursive: true });
  for (const [name, text] of Object.entries(options.homeFiles ?? {})) {
    await writeFile(path.join(home, name), text);
  }
  const config = path.join(directory, 'switchyard.config.json');
  await writeFile(
    config,
    JSON.stringify({
      model: { name: 'fake-model', maxRetries: 0 },
      database:
        options.database.kind === 'postgres'
          ? { url: options.database.url }
          : { dataDir: path.join(directory, '.switchyard', 'db') },
      ...(options.serve === undefined ? {} : { serve: options.serve }),
      budgets: options.budgets ?? BENCH_BUDGETS,
    }),
  );
  return {
    directory,
    home,
    config,
    loopDelayFile: path.join(directory, 'loop-delay.json'),
    heapFile: path.join(directory, 'heap.json'),
  };
}

/**
 * Spawns `switchyard serve --agent bench --port 0` in the folder: `node` with its options and the
 * monitors asked for (under `prlimit` for an open-file limit), its model the fake server.
 */
function spawnServe(options: ServeDaemonOptions, folder: ServeFolder): ChildProcess {
  const limit =
    options.openFileLimit === undefined
      ? []
      : [`--nofile=${options.openFileLimit}:${options.openFileLimit}`, '--', process.execPath];
  return spawn(
    options.openFileLimit === undefined ? process.execPath : 'prlimit',
    [
      ...limit,
      ...(options.nodeArguments ?? []),
      ...(options.loopDelay === true ? [`--import=${LOOP_DELAY_MONITOR}`] : []),
      ...(options.heap === true ? ['--expose-gc', `--import=${HEAP_MONITOR}`] : []),
      CLI_PATH,
      'serve',
      '--config',
      folder.config,
      '--agent',
      BENCH_AGENT,
      '--port',
      '0',
    ],
    {
      cwd: folder.directory,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        OPENAI_BASE_URL: options.baseURL,
        OPENAI_API_KEY: 'bench',
        ...(options.loopDelay === true ? { BENCH_LOOP_DELAY_FILE: folder.loopDelayFile } : {}),
        ...(options.heap === true ? { BENCH_HEAP_FILE: folder.heapFile } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
}

/** How long a daemon may take to listen. */
const LISTEN_TIMEOUT_MS = 120_000;

/**
 * Collects the child's stderr for good and resolves with the API's URL once it logged that it
 * listens (and, with a health listener, that line too: it comes right after the API's).
 *
 * Contract: rejects with the log if the process exits first or takes over 120 s.
 */
function waitForListening(
  child: ChildProcess,
  exited: Promise<number | string | null>,
  healthWanted: boolean,
): { log: () => string; url: Promise<string> } {
  let log = '';
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not listen within 120 s:\n${log}`)),
      LISTEN_TIMEOUT_MS,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(log)?.[1];
      if (found !== undefined && (!healthWanted || /health checks on http:\/\/\S+\n/.test(log))) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${String(code)}) before listening:\n${log}`));
    });
  });
  return { log: () => log, url };
}

/** How long a monitor may take to answer. */
const MONITOR_TIMEOUT_MS = 30_000;

/** A loop-delay monitor's reading as it writes it (`null` without a sample). */
interface LoopDelayReading {
  sequence: number;
  samples: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/** A heap monitor's reading as it writes it. */
type HeapReading = { sequence: number; collected: boolean } & LiveHeap;

/** The handle of a daemon that listens: its readings, and its stop. */
function serveDaemonHandle(
  options: ServeDaemonOptions,
  child: ChildProcess,
  folder: ServeFolder,
  started: { url: string; log: () => string; exited: Promise<unknown> },
): ServeDaemon {
  const { log, exited } = started;
  const pid = child.pid ?? -1;
  let loopDelayReadings = 0;
  let heapReadings = 0;
  return {
    url: started.url,
    healthUrl: /health checks on (http:\/\/\S+)/.exec(log())?.[1],
    pid,
    home: folder.home,
    log,
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
      const seen = await readMonitor<LoopDelayReading>(child, folder.loopDelayFile, loopDelayReadings, {
        timeoutMs: MONITOR_TIMEOUT_MS,
        failure: () => `the loop-delay monitor did not answer in 30 s:\n${log()}`,
      });
      return {
        samples: seen.samples,
        p50Ms: seen.p50Ms ?? Number.NaN,
        p99Ms: seen.p99Ms ?? Number.NaN,
        maxMs: seen.maxMs ?? Number.NaN,
      };
    },
    liveHeap: async () => {
      if (options.heap !== true) throw new Error('liveHeap(): the daemon was started without the monitor');
      heapReadings += 1;
      const seen = await readMonitor<HeapReading>(child, folder.heapFile, heapReadings, {
        timeoutMs: MONITOR_TIMEOUT_MS,
        failure: () => `the heap monitor did not answer in 30 s:\n${log()}`,
      });
      if (!seen.collected) throw new Error('liveHeap(): the daemon has no gc() (--expose-gc)');
      return { heapUsed: seen.heapUsed, external: seen.external };
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      await rm(folder.directory, { recursive: true, force: true });
    },
  };
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
  const folder = await prepareServeFolder(options);
  const child = spawnServe(options, folder);
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const listening = waitForListening(child, exited, options.serve?.healthPort !== undefined);
  const url = await listening.url.catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await rm(folder.directory, { recursive: true, force: true });
    throw error;
  });
  return serveDaemonHandle(options, child, folder, { url, log: listening.log, exited });
}
