import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { type FakeRequest, startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { daemonJson, listTurns } from '../daemon/daemon-requests';
import {
  type LatencySummary,
  medianRun,
  mostConcurrent,
  msPer,
  percentile,
  perSecond,
  ratio,
  rssPerTurn,
  summariseLatency,
} from '../daemon/daemon-stats';
import type { FloorJob, FloorResult } from '../daemon/floor-process';
import { listFilesScript } from '../daemon/list-files-script';
import { pollHealth } from '../daemon/poll-health';
import { mainThreadSchedule, processCpuMs } from '../daemon/process-cpu';
import { sampleRss } from '../daemon/sample-rss';
import {
  type DaemonDatabase,
  type LoopDelay,
  type ServeDaemon,
  startServeDaemon,
} from '../daemon/serve-daemon';
import { startThrowawayPostgres } from '../daemon/throwaway-postgres';
import { heading, median, report } from '../measure';
import { runBareLoop } from '../runtimes/openai-sdk-loop-runtime';

/** Targets from issue 23. */
export const BUSY_DAEMON_TARGETS = {
  /** Daemon turns/s over the floor's, on PostgreSQL. */
  floorRatioPostgres: 0.75,
  /** Daemon turns/s over the floor's, on embedded PGlite. */
  floorRatioPglite: 0.6,
  /** `/healthz` median latency at the highest level, ms. */
  healthP50Ms: 100,
  /** Idle RSS after start on PGlite, bytes. */
  idleRssPgliteBytes: 250 * 2 ** 20,
} as const;

/** One concurrency level on one backend. */
export interface BusyDaemonRow {
  /** Turns started at once. */
  turns: number;
  /** Turns the daemon recorded `completed`. */
  completed: number;
  /** Daemon throughput: completed turns over the time from the first POST to the last recorded end. */
  turnsPerSecond: number;
  /** The bare-loop floor's throughput in its own process, just before, same fake model. */
  floorTurnsPerSecond: number;
  /** `turnsPerSecond / floorTurnsPerSecond`: the median of the level's runs (this row is that run). */
  floorRatio: number;
  /** Every run's ratio, in the order they ran (the level runs `repeats` times). */
  runRatios: number[];
  /** Daemon turn times (POST sent to the recorded end) against the model's own time. */
  latency: LatencySummary;
  /** The floor's turn times against the model's own time. */
  floorLatency: LatencySummary;
  /** (Peak RSS while the turns ran - RSS before) / `mostRunning`, bytes. */
  rssPerTurnBytes: number;
  /** Peak RSS while the turns ran, bytes. */
  peakRssBytes: number;
  /** The most turns running at once: from the records (created to ended), or a `/healthz` answer if higher. */
  mostRunning: number;
  /** `/healthz` latency while the turns ran (polled every 50 ms, one at a time), ms. */
  healthP50Ms: number;
  /** 99th percentile `/healthz` latency, ms. */
  healthP99Ms: number;
  /** Slowest `/healthz` answer, ms. */
  healthMaxMs: number;
  /** `/healthz` answers sampled. */
  healthSamples: number;
  /** `/healthz` on the health listener (`serve.healthPort`), polled the same way beside it: p50, p99, max, ms. */
  healthPort: { p50Ms: number; p99Ms: number; maxMs: number; samples: number };
  /** The daemon's event-loop delay over the level (Node's `monitorEventLoopDelay`, preloaded). */
  loopDelay: LoopDelay;
  /** Where the CPU went, per completed turn (the daemon's figures over its level, the floor's over its own). */
  cpu: TurnCpu;
  /** Problems: turns not completed, floor failures (first few). */
  problems: string[];
}

/**
 * CPU time per completed turn, from `/proc`, and how each main thread spent its level's wall time:
 * running on a core, or ready to run and waiting for one (the rest it waited on I/O).
 */
export interface TurnCpu {
  /** The daemon's whole process (its thread, libuv's pool, V8's helpers, PGlite's thread), ms. */
  daemonMs: number;
  /** The daemon's main (JavaScript) thread, ms. */
  daemonThreadMs: number;
  /** The share of the level's wall time the daemon's main thread ran (1 = throughout). */
  daemonThreadRunning: number;
  /** The share of the level's wall time it was ready to run but waited for a core. */
  daemonThreadWaiting: number;
  /** The floor's whole process, ms. */
  floorMs: number;
  /** The floor's main thread, ms. */
  floorThreadMs: number;
  /** The share of its level's wall time the floor's main thread ran. */
  floorThreadRunning: number;
  /** The share of its level's wall time it waited for a core. */
  floorThreadWaiting: number;
  /** The PostgreSQL server (postmaster and backends) during the daemon's level, ms; NaN on PGlite. */
  postgresMs: number;
}

/** One backend's runs. */
export interface BusyDaemonBackend {
  /** `pglite` (embedded, the default) or `postgres` (a throw-away cluster). */
  backend: 'pglite' | 'postgres';
  /** Why the backend did not run, when it did not. */
  skipped?: string;
  /** RSS 2 s after the process listened, before any turn, bytes. */
  idleRssBytes: number;
  /** Start-up: spawn to listening, ms. */
  startMs: number;
  /** One turn alone (the warm-up), POST to recorded end, ms. */
  oneTurnMs: number;
  rows: BusyDaemonRow[];
}

/** What the busy-daemon benchmark found. */
export interface BusyDaemonResult {
  date: string;
  node: string;
  cores: number;
  /** 1-minute load average before and after. */
  load: [before: number, after: number];
  /** Tool calls per turn (one model response each), then a text answer. */
  calls: number;
  /** Runs per level, floor and daemon in alternating order. */
  repeats: number;
  /** The fake model's own time for one turn's script (its requests back to back, no tool work), ms. */
  modelMs: number;
  backends: BusyDaemonBackend[];
}

const FLOOR_FILE = fileURLToPath(new URL('../daemon/floor-process.ts', import.meta.url));
const BENCH_DIR = fileURLToPath(new URL('../..', import.meta.url));
const HOME_FILES: Record<string, string> = Object.fromEntries(
  Array.from({ length: 8 }, (_, index) => [`note-${index}.md`, `# Note ${index}\n\nSome text.\n`]),
);

/** The floor's process: one per daemon, living as long as it. */
interface FloorProcess {
  /** Its process id. */
  readonly pid: number;
  /** Runs one level's turns in the process and returns what it measured. */
  run(job: FloorJob): Promise<FloorResult>;
  /** Ends the process (closes its standard input) and waits for it. */
  stop(): Promise<void>;
}

/** Starts the floor in a process of its own (`floor-process.ts`), which runs one job per line. */
function startFloorProcess(): FloorProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', FLOOR_FILE], {
    cwd: BENCH_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FLOOR_PROCESS: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const waiting: Array<{ resolve: (result: FloorResult) => void; reject: (error: Error) => void }> = [];
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (let newline = stdout.indexOf('\n'); newline !== -1; newline = stdout.indexOf('\n')) {
      const line = stdout.slice(0, newline);
      stdout = stdout.slice(newline + 1);
      waiting.shift()?.resolve(JSON.parse(line) as FloorResult);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code) => {
      for (const job of waiting.splice(0)) {
        job.reject(new Error(`floor process exited ${String(code)}: ${stderr.slice(0, 500)}`));
      }
      resolve();
    });
  });
  return {
    pid: child.pid ?? -1,
    run: (job) =>
      new Promise<FloorResult>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin?.write(`${JSON.stringify(job)}\n`);
      }),
    stop: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}

/** The model's own time for one turn's script: its requests answered back to back to one client, no tool work. */
async function modelTime(baseURL: string, tools: FunctionTool[], runs: number): Promise<number> {
  const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    await runBareLoop({
      client,
      instructions: 'You are a worker.',
      input: `model time ${run}`,
      tools,
      runCall: async () => 'note-0.md',
    });
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Waits until a recorded turn has ended; returns its record. */
async function waitForTurnEnd(
  url: string,
  id: string,
  timeoutMs: number,
): Promise<{ status: string; endedAt?: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const turn: { status: string; endedAt?: string } = await daemonJson(`${url}/v1/turns/${id}`);
    if (turn.endedAt !== undefined) return turn;
    if (Date.now() > deadline) throw new Error(`turn ${id} still ${turn.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What one daemon level measured (the floor's figures are added beside it). */
export type DaemonLevel = Omit<
  BusyDaemonRow,
  'floorTurnsPerSecond' | 'floorRatio' | 'runRatios' | 'floorLatency' | 'cpu'
> & {
  /** The daemon's CPU per completed turn (the floor's fields are added by the caller). */
  cpu: Pick<
    TurnCpu,
    'daemonMs' | 'daemonThreadMs' | 'daemonThreadRunning' | 'daemonThreadWaiting' | 'postgresMs'
  >;
};

/**
 * Starts `turns` API turns at once on a running daemon (started with `loopDelay`) and measures
 * them: from outside, throughput, turn times, RSS while they run and `/healthz` latency; from
 * `/proc`, the CPU time of the daemon (and of the PostgreSQL server, `serverCpuMs`) over the level;
 * from the preloaded monitor, the event-loop delay over the level.
 */
export async function runDaemonLevel(
  daemon: ServeDaemon,
  turns: number,
  modelMs: number,
  options: { serverCpuMs?: () => number; timeoutMs?: number } = {},
): Promise<DaemonLevel> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const idle = daemon.rss() ?? 0;
  // Starts the level's event-loop histogram over.
  await daemon.loopDelay();
  const cpuBefore = processCpuMs(daemon.pid);
  const threadBefore = mainThreadSchedule(daemon.pid);
  const serverBefore = options.serverCpuMs?.() ?? Number.NaN;
  const health = pollHealth(daemon.url, 50);
  const healthPort =
    daemon.healthUrl === undefined ? undefined : pollHealth(new URL(daemon.healthUrl).origin, 50);
  const rss = sampleRss(() => daemon.rss(), 100);
  const startWall = Date.now();
  const postedAt = new Map<string, number>();
  await Promise.all(
    Array.from({ length: turns }, async (_, index) => {
      const sent = Date.now();
      const turn: { id: string } = await daemonJson(`${daemon.url}/v1/turns`, {
        body: { prompt: `busy turn ${index}` },
        expect: 202,
      });
      postedAt.set(turn.id, sent);
    }),
  );
  // Every turn is running once its POST was answered: wait for a /healthz answer given after that
  // saying none is left.
  const answersAfterPosts = health.latencies.length + 1;
  const deadline = Date.now() + timeoutMs;
  while (!(health.latencies.length > answersAfterPosts && health.running === 0)) {
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const cpuMs = processCpuMs(daemon.pid) - cpuBefore;
  const threadAfter = mainThreadSchedule(daemon.pid);
  const serverMs = (options.serverCpuMs?.() ?? Number.NaN) - serverBefore;
  const peak = rss.stop();
  await health.stop();
  await healthPort?.stop();
  const loopDelay = await daemon.loopDelay();
  const records = (await listTurns(daemon.url)).filter((turn) => postedAt.has(turn.id));
  const ended = records.filter((turn) => turn.endedAt !== undefined);
  const completed = records.filter((turn) => turn.status === 'completed');
  const lastEnd = Math.max(...ended.map((turn) => Date.parse(turn.endedAt ?? '')));
  // The level's wall time is the throughput's: first POST to the last recorded end.
  const levelMs = lastEnd - startWall;
  const threadMs = threadAfter.runMs - threadBefore.runMs;
  const turnMs = ended.map((turn) => Date.parse(turn.endedAt ?? '') - (postedAt.get(turn.id) ?? Number.NaN));
  // From the records (created to ended): a daemon busy enough answers /healthz too rarely to see its peak.
  const mostRunning = Math.max(
    health.mostRunning,
    mostConcurrent(
      ended.map((turn) => [Date.parse(turn.createdAt), Date.parse(turn.endedAt ?? '')] as const),
    ),
  );
  const problems: string[] = [];
  if (completed.length !== turns) {
    const statuses = new Map<string, number>();
    for (const turn of records) statuses.set(turn.status, (statuses.get(turn.status) ?? 0) + 1);
    const errors = [
      ...new Set(records.flatMap((turn) => (turn.error === undefined ? [] : [turn.error.split('\n')[0]]))),
    ];
    problems.push(
      `${turns - completed.length} of ${turns} turns not completed (${[...statuses].map(([status, count]) => `${status} ${count}`).join(', ')}; ${errors.slice(0, 2).join('; ')})`,
    );
  }
  return {
    turns,
    completed: completed.length,
    turnsPerSecond: perSecond(completed.length, lastEnd - startWall),
    latency: summariseLatency(turnMs, modelMs),
    rssPerTurnBytes: rssPerTurn(peak, idle, mostRunning),
    peakRssBytes: peak,
    mostRunning,
    healthP50Ms: percentile(health.latencies, 50),
    healthP99Ms: percentile(health.latencies, 99),
    healthMaxMs: Math.max(...health.latencies),
    healthSamples: health.latencies.length,
    healthPort: {
      p50Ms: percentile(healthPort?.latencies ?? [], 50),
      p99Ms: percentile(healthPort?.latencies ?? [], 99),
      maxMs: healthPort === undefined ? Number.NaN : Math.max(...healthPort.latencies),
      samples: healthPort?.latencies.length ?? 0,
    },
    loopDelay,
    cpu: {
      daemonMs: msPer(cpuMs, completed.length),
      daemonThreadMs: msPer(threadMs, completed.length),
      daemonThreadRunning: levelMs > 0 ? threadMs / levelMs : Number.NaN,
      daemonThreadWaiting: levelMs > 0 ? (threadAfter.waitMs - threadBefore.waitMs) / levelMs : Number.NaN,
      postgresMs: msPer(serverMs, completed.length),
    },
    problems,
  };
}

/** Runs one floor job and reads the floor process's CPU time around it. */
async function runFloorLevel(
  floorProcess: FloorProcess,
  job: FloorJob,
): Promise<{
  result: FloorResult;
  cpu: Pick<TurnCpu, 'floorMs' | 'floorThreadMs' | 'floorThreadRunning' | 'floorThreadWaiting'>;
}> {
  const cpuBefore = processCpuMs(floorProcess.pid);
  const threadBefore = mainThreadSchedule(floorProcess.pid);
  const result = await floorProcess.run(job);
  const threadAfter = mainThreadSchedule(floorProcess.pid);
  const threadMs = threadAfter.runMs - threadBefore.runMs;
  const done = result.turnMs.length;
  const share = (ms: number) => (result.elapsedMs > 0 ? ms / result.elapsedMs : Number.NaN);
  return {
    result,
    cpu: {
      floorMs: msPer(processCpuMs(floorProcess.pid) - cpuBefore, done),
      floorThreadMs: msPer(threadMs, done),
      floorThreadRunning: share(threadMs),
      floorThreadWaiting: share(threadAfter.waitMs - threadBefore.waitMs),
    },
  };
}

/** Options of the busy-daemon benchmark. */
export interface BusyDaemonOptions {
  /** Concurrency levels (default 50, 200, 500). */
  levels?: readonly number[];
  /** Tool calls per turn (default 5). */
  calls?: number;
  /** Runs per level (default 3): floor then daemon, daemon then floor, and so on; the median run is reported. */
  repeats?: number;
  /** Backends to run (default both). */
  backends?: ReadonlyArray<'pglite' | 'postgres'>;
  /** Options for the daemon child's `node` (profiling: `--cpu-prof`). */
  nodeArguments?: readonly string[];
}

/**
 * One `switchyard serve` process per backend with the testkit's fake model; at each level, N
 * concurrent API turns of `calls` `list_files` calls each, then a text answer; beside it the same N
 * turns through the bare openai-SDK loop in a process of its own against the same fake model.
 */
export async function busyDaemon(options: BusyDaemonOptions = {}): Promise<BusyDaemonResult> {
  const levels = options.levels ?? [50, 200, 500];
  const calls = options.calls ?? 5;
  const repeats = options.repeats ?? 3;
  if (!Number.isInteger(repeats) || repeats < 1)
    throw new Error(`repeats must be a whole number from 1, got ${repeats}`);
  const before = os.loadavg()[0] ?? Number.NaN;
  const script = listFilesScript(calls);
  let tools: FunctionTool[] | undefined;
  const fake = await startFakeResponsesServer({
    record: false,
    script: (request: FakeRequest) => {
      // The daemon's own tools array, so the floor's requests carry the same bytes.
      tools ??= request.body.tools as unknown as FunctionTool[];
      return script(request);
    },
  });
  heading(`Busy daemon: N concurrent API turns of ${calls} list_files calls (load ${before.toFixed(1)})`);
  const backends: BusyDaemonBackend[] = [];
  let modelMs = Number.NaN;
  try {
    for (const backend of options.backends ?? (['pglite', 'postgres'] as const)) {
      let database: DaemonDatabase = { kind: 'pglite' };
      let stopPostgres: (() => Promise<void>) | undefined;
      let serverCpuMs: (() => number) | undefined;
      if (backend === 'postgres') {
        const postgres = await startThrowawayPostgres();
        if ('skipped' in postgres) {
          backends.push({
            backend,
            skipped: postgres.skipped,
            idleRssBytes: Number.NaN,
            startMs: Number.NaN,
            oneTurnMs: Number.NaN,
            rows: [],
          });
          report(`${backend}`, 'skipped', postgres.skipped);
          continue;
        }
        database = { kind: 'postgres', url: postgres.url };
        stopPostgres = postgres.stop;
        serverCpuMs = postgres.cpuMs;
      }
      const started = performance.now();
      const daemon = await startServeDaemon({
        baseURL: fake.baseURL,
        database,
        homeFiles: HOME_FILES,
        // Probes on a port of their own beside the API's: what an operator's liveness probe sees.
        serve: { healthPort: 0 },
        loopDelay: true,
        ...(options.nodeArguments === undefined ? {} : { nodeArguments: options.nodeArguments }),
      });
      const startMs = performance.now() - started;
      // The floor lives as long as the daemon, so both reach each level with the same history.
      const floorProcess = startFloorProcess();
      try {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const idleRssBytes = daemon.rss() ?? Number.NaN;
        // Warm-up: one turn alone (and the daemon's tools array for the floor).
        const sent = Date.now();
        const warm: { id: string } = await daemonJson(`${daemon.url}/v1/turns`, {
          body: { prompt: 'warm-up turn' },
          expect: 202,
        });
        const warmEnd = await waitForTurnEnd(daemon.url, warm.id, 60_000);
        const oneTurnMs = Date.parse(warmEnd.endedAt ?? '') - sent;
        if (warmEnd.status !== 'completed')
          throw new Error(`the warm-up turn ended ${warmEnd.status}:\n${daemon.log()}`);
        if (tools === undefined) throw new Error('the fake model saw no tools array');
        if (Number.isNaN(modelMs)) modelMs = await modelTime(fake.baseURL, tools, 20);
        report(
          `${backend}: idle RSS, one turn`,
          `${(idleRssBytes / 2 ** 20).toFixed(0)} MB`,
          `${oneTurnMs} ms`,
        );
        const rows: BusyDaemonRow[] = [];
        for (const turns of levels) {
          const runs: Array<Omit<BusyDaemonRow, 'runRatios'>> = [];
          for (let run = 0; run < repeats; run += 1) {
            // Alternating order, so neither side always runs on the machine the other just left.
            const floorJob = { baseURL: fake.baseURL, turns, home: daemon.home, tools };
            const level = () =>
              runDaemonLevel(daemon, turns, modelMs, serverCpuMs === undefined ? {} : { serverCpuMs });
            let floorRun: Awaited<ReturnType<typeof runFloorLevel>>;
            let measured: DaemonLevel;
            if (run % 2 === 0) {
              floorRun = await runFloorLevel(floorProcess, floorJob);
              measured = await level();
            } else {
              measured = await level();
              floorRun = await runFloorLevel(floorProcess, floorJob);
            }
            const floor = floorRun.result;
            const floorTurnsPerSecond = perSecond(floor.turnMs.length, floor.elapsedMs);
            const failures = floor.failures.filter((failure) => failure !== '');
            runs.push({
              ...measured,
              floorTurnsPerSecond,
              floorRatio: ratio(measured.turnsPerSecond, floorTurnsPerSecond),
              floorLatency: summariseLatency(floor.turnMs, modelMs),
              cpu: { ...measured.cpu, ...floorRun.cpu },
              problems: [
                ...measured.problems,
                ...(floor.failures.length === 0
                  ? []
                  : [`floor: ${floor.failures.length} turns failed: ${failures.join('; ')}`]),
              ],
            });
          }
          const runRatios = runs.map((run) => run.floorRatio);
          const row: BusyDaemonRow = {
            ...medianRun(runs, (run) => run.floorRatio),
            runRatios,
            // A problem in any run is reported, not only in the one shown.
            problems: [...new Set(runs.flatMap((run) => run.problems))],
          };
          rows.push(row);
          report(
            `${backend} ${turns} turns: turns/s (floor), p50, healthz p50/max, loop delay p99, thread CPU a turn`,
            `${row.turnsPerSecond.toFixed(1)}/s`,
            `${row.floorRatio.toFixed(2)}x (runs ${runRatios.map((value) => value.toFixed(2)).join(', ')}) of ${row.floorTurnsPerSecond.toFixed(1)}/s, ${row.latency.p50.toFixed(0)} ms, ${row.healthP50Ms.toFixed(0)}/${row.healthMaxMs.toFixed(0)} ms, ${row.loopDelay.p99Ms.toFixed(0)} ms, ${row.cpu.daemonThreadMs.toFixed(1)} ms (floor ${row.cpu.floorThreadMs.toFixed(1)} ms)${row.problems.length === 0 ? '' : ` (${row.problems.join('; ')})`}`,
          );
        }
        backends.push({ backend, idleRssBytes, startMs, oneTurnMs, rows });
      } finally {
        await floorProcess.stop();
        await daemon.stop();
        await stopPostgres?.();
      }
    }
  } finally {
    await fake.close().catch(() => {});
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    cores: os.cpus().length,
    load: [before, os.loadavg()[0] ?? Number.NaN],
    calls,
    repeats,
    modelMs,
    backends,
  };
}
