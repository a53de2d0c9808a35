import os from 'node:os';
import { type FakeRequest, startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { daemonJson } from '../daemon/daemon-requests';
import { type LatencySummary, medianRun, perSecond, ratio, summariseLatency } from '../daemon/daemon-stats';
import {
  type JournalOverheadRow,
  type JournalPair,
  journalOffDatabase,
  journalOverheadRow,
  runJournalPair,
} from '../daemon/journal-overhead';
import { listFilesScript } from '../daemon/list-files-script';
import { type DaemonLevel, runDaemonLevel } from '../daemon/run-daemon-level';
import type { DaemonDatabase, LoopDelay, ServeDaemon } from '../daemon/serve-daemon';
import { startServeDaemon } from '../daemon/serve-daemon';
import { type FloorProcess, runFloorLevel, startFloorProcess } from '../daemon/start-floor-process';
import { startThrowawayPostgres } from '../daemon/throwaway-postgres';
import { heading, machineNow, median, report } from '../measure';
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
  /** Issue 41, per level: the daemon of `rows` (journaling its turns) against one with `serve.journal: false`. */
  journal: JournalOverheadRow[];
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

const HOME_FILES: Record<string, string> = Object.fromEntries(
  Array.from({ length: 8 }, (_, index) => [`note-${index}.md`, `# Note ${index}\n\nSome text.\n`]),
);

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

/** Options of the busy-daemon benchmark. */
export interface BusyDaemonOptions {
  /** Concurrency levels (default 50, 200, 500). */
  levels?: readonly number[];
  /** Tool calls per turn (default 5). */
  calls?: number;
  /**
   * Runs per level (default 3): floor, daemon, daemon without journals, then the other way round, and so
   * on; the median run is reported.
   */
  repeats?: number;
  /** Backends to run (default both). */
  backends?: ReadonlyArray<'pglite' | 'postgres'>;
  /** Options for the daemon child's `node` (profiling: `--cpu-prof`). */
  nodeArguments?: readonly string[];
}

/** What every backend's run shares: the fake model, the settings, and the model's own time once known. */
interface BusyRun {
  /** The fake Responses server's `/v1` URL. */
  baseURL: string;
  /** The daemon's tools array, as the fake model first saw it (for the floor's requests). */
  tools: () => FunctionTool[] | undefined;
  levels: readonly number[];
  repeats: number;
  nodeArguments: readonly string[] | undefined;
  /** The model's own time for one turn's script, measured after the first warm-up; NaN until then. */
  modelMs: number;
}

/** A backend's database for the daemon: PGlite in its folder, or a throw-away PostgreSQL cluster. */
type BackendDatabase =
  | { database: DaemonDatabase; serverCpuMs?: () => number; stop?: () => Promise<void> }
  | { skipped: string };

async function startBackendDatabase(backend: 'pglite' | 'postgres'): Promise<BackendDatabase> {
  if (backend === 'pglite') return { database: { kind: 'pglite' } };
  const postgres = await startThrowawayPostgres();
  if ('skipped' in postgres) return postgres;
  return {
    database: { kind: 'postgres', url: postgres.url },
    serverCpuMs: postgres.cpuMs,
    stop: postgres.stop,
  };
}

/** One turn alone, POST to its recorded end, ms. Throws unless it completed. */
async function warmUp(daemon: ServeDaemon): Promise<number> {
  const sent = Date.now();
  const warm: { id: string } = await daemonJson(`${daemon.url}/v1/turns`, {
    body: { prompt: 'warm-up turn' },
    expect: 202,
  });
  const warmEnd = await waitForTurnEnd(daemon.url, warm.id, 60_000);
  if (warmEnd.status !== 'completed')
    throw new Error(`the warm-up turn ended ${warmEnd.status}:\n${daemon.log()}`);
  return Date.parse(warmEnd.endedAt ?? '') - sent;
}

/** Where one level runs: the daemon, its floor, the daemon without journals and what the run shares. */
interface LevelPlace {
  daemon: ServeDaemon;
  /** Started the same way as `daemon`, with `serve.journal: false`. */
  journalOff: ServeDaemon;
  floorProcess: FloorProcess;
  serverCpuMs: (() => number) | undefined;
  run: BusyRun;
  tools: FunctionTool[];
}

/**
 * One run of a level: the floor's turns and the daemon's, in the order `run` gives (alternating,
 * so neither side always runs on the machine the other just left), side by side.
 */
async function runLevelOnce(
  place: LevelPlace,
  turns: number,
  run: number,
): Promise<Omit<BusyDaemonRow, 'runRatios'>> {
  const { daemon, floorProcess, serverCpuMs } = place;
  const { modelMs } = place.run;
  const floorJob = { baseURL: place.run.baseURL, turns, home: daemon.home, tools: place.tools };
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
  return {
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
  };
}

/**
 * A level's rows: its runs (`repeats` of them), the one with the median ratio to the floor shown, and
 * the journal's comparison (the daemon without journals run in the same runs, in rotating order).
 */
async function runLevel(
  place: LevelPlace,
  backend: string,
  turns: number,
): Promise<{ row: BusyDaemonRow; journal: JournalOverheadRow }> {
  const pairs: Array<JournalPair<Omit<BusyDaemonRow, 'runRatios'>>> = [];
  const { serverCpuMs } = place;
  const journalOff = () =>
    runDaemonLevel(
      place.journalOff,
      turns,
      place.run.modelMs,
      serverCpuMs === undefined ? {} : { serverCpuMs },
    );
  for (let run = 0; run < place.run.repeats; run += 1) {
    pairs.push(await runJournalPair(run, () => runLevelOnce(place, turns, run), journalOff));
  }
  const runs = pairs.map((pair) => pair.on);
  const runRatios = runs.map((run) => run.floorRatio);
  const row: BusyDaemonRow = {
    ...medianRun(runs, (run) => run.floorRatio),
    runRatios,
    // A problem in any run is reported, not only in the one shown.
    problems: [...new Set(runs.flatMap((run) => run.problems))],
  };
  report(
    `${backend} ${turns} turns: turns/s (floor), p50, healthz p50/max, loop delay p99, thread CPU a turn`,
    `${row.turnsPerSecond.toFixed(1)}/s`,
    `${row.floorRatio.toFixed(2)}x (runs ${runRatios.map((value) => value.toFixed(2)).join(', ')}) of ${row.floorTurnsPerSecond.toFixed(1)}/s, ${row.latency.p50.toFixed(0)} ms, ${row.healthP50Ms.toFixed(0)}/${row.healthMaxMs.toFixed(0)} ms, ${row.loopDelay.p99Ms.toFixed(0)} ms, ${row.cpu.daemonThreadMs.toFixed(1)} ms (floor ${row.cpu.floorThreadMs.toFixed(1)} ms)${row.problems.length === 0 ? '' : ` (${row.problems.join('; ')})`}`,
  );
  const journal = journalOverheadRow(turns, pairs);
  report(
    `${backend} ${turns} turns: journal on / off turns/s, thread CPU a turn on / off`,
    `${journal.ratio.toFixed(2)}x`,
    `(runs ${journal.runRatios.map((value) => value.toFixed(2)).join(', ')}) ${journal.onTurnsPerSecond.toFixed(1)}/s / ${journal.offTurnsPerSecond.toFixed(1)}/s, ${journal.onCpu.threadMs.toFixed(1)} ms / ${journal.offCpu.threadMs.toFixed(1)} ms${journal.problems.length === 0 ? '' : ` (${journal.problems.join('; ')})`}`,
  );
  return { row, journal };
}

/**
 * A benchmark daemon on `database`: probes on a port of their own beside the API's (what an
 * operator's liveness probe sees), the event-loop delay monitor, the run's node options; `serve`
 * settings on top. Both daemons of a backend start through here, so they differ only in `serve`.
 */
function startBenchDaemon(run: BusyRun, database: DaemonDatabase, serve: Record<string, unknown> = {}) {
  return startServeDaemon({
    baseURL: run.baseURL,
    database,
    homeFiles: HOME_FILES,
    serve: { healthPort: 0, ...serve },
    loopDelay: true,
    ...(run.nodeArguments === undefined ? {} : { nodeArguments: run.nodeArguments }),
  });
}

/** The daemon without journals (`serve.journal: false`) on a database of its own beside `database`. */
async function startJournalOffDaemon(run: BusyRun, database: DaemonDatabase): Promise<ServeDaemon> {
  return startBenchDaemon(run, journalOffDatabase(database), { journal: false });
}

/**
 * One backend: its daemon started (with its floor beside it, living as long as it, so both reach
 * each level with the same history), then the daemon without journals (`serve.journal: false`, its
 * own database), idle RSS, one turn alone on each, then every level.
 */
async function runBackend(backend: 'pglite' | 'postgres', run: BusyRun): Promise<BusyDaemonBackend> {
  const database = await startBackendDatabase(backend);
  if ('skipped' in database) {
    report(`${backend}`, 'skipped', database.skipped);
    const none = { idleRssBytes: Number.NaN, startMs: Number.NaN, oneTurnMs: Number.NaN, rows: [] };
    return { backend, skipped: database.skipped, ...none, journal: [] };
  }
  try {
    const started = performance.now();
    const daemon = await startBenchDaemon(run, database.database);
    const startMs = performance.now() - started;
    const floorProcess = startFloorProcess();
    const journalOff = await startJournalOffDaemon(run, database.database).catch(async (error: unknown) => {
      await floorProcess.stop();
      await daemon.stop();
      throw error;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const idleRssBytes = daemon.rss() ?? Number.NaN;
      // Warm-up: one turn alone (and the daemon's tools array for the floor).
      const oneTurnMs = await warmUp(daemon);
      const tools = run.tools();
      if (tools === undefined) throw new Error('the fake model saw no tools array');
      if (Number.isNaN(run.modelMs)) run.modelMs = await modelTime(run.baseURL, tools, 20);
      const offTurnMs = await warmUp(journalOff);
      report(
        `${backend}: idle RSS, one turn (without journals), daemon pids with and without journals`,
        `${(idleRssBytes / 2 ** 20).toFixed(0)} MB`,
        `${oneTurnMs} ms (${offTurnMs} ms), ${daemon.pid} and ${journalOff.pid}`,
      );
      const place = { daemon, journalOff, floorProcess, serverCpuMs: database.serverCpuMs, run, tools };
      const rows: BusyDaemonRow[] = [];
      const journal: JournalOverheadRow[] = [];
      for (const turns of run.levels) {
        const level = await runLevel(place, backend, turns);
        rows.push(level.row);
        journal.push(level.journal);
      }
      return { backend, idleRssBytes, startMs, oneTurnMs, rows, journal };
    } finally {
      await floorProcess.stop();
      await journalOff.stop();
      await daemon.stop();
    }
  } finally {
    await database.stop?.();
  }
}

/**
 * One `switchyard serve` process per backend with the testkit's fake model; at each level, N
 * concurrent API turns of `calls` `list_files` calls each, then a text answer; beside it the same N
 * turns through the bare openai-SDK loop in a process of its own against the same fake model.
 */
export async function busyDaemon(options: BusyDaemonOptions = {}): Promise<BusyDaemonResult> {
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
  const run: BusyRun = {
    baseURL: fake.baseURL,
    tools: () => tools,
    levels: options.levels ?? [50, 200, 500],
    repeats,
    nodeArguments: options.nodeArguments,
    modelMs: Number.NaN,
  };
  const backends: BusyDaemonBackend[] = [];
  try {
    for (const backend of options.backends ?? (['pglite', 'postgres'] as const)) {
      backends.push(await runBackend(backend, run));
    }
  } finally {
    await fake.close().catch(() => {});
  }
  return {
    ...machineNow(before),
    calls,
    repeats,
    modelMs: run.modelMs,
    backends,
  };
}
