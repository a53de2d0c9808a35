import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type FakeRequest, type FakeResponse, startFakeResponsesServer } from '@switchyard/testkit';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { daemonJson, listTurns } from '../daemon/daemon-requests';
import { percentile } from '../daemon/daemon-stats';
import type { ProbeReport } from '../daemon/health-probe-process';
import { probeHealthElsewhere } from '../daemon/poll-health';
import { type BurstAnswer, postBurst } from '../daemon/post-burst';
import { cpuSince, mainThreadSchedule, processCpuMs, readCpu } from '../daemon/process-cpu';
import { sampleRss } from '../daemon/sample-rss';
import { type DaemonDatabase, type LoopDelay, startServeDaemon } from '../daemon/serve-daemon';
import { runFloorLevel, startFloorProcess } from '../daemon/start-floor-process';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../daemon/throwaway-postgres';
import { heading, machineNow, report } from '../measure';

/** Issue 46's targets for turns in flight with a model that takes 1 s a request. */
export const TURNS_IN_FLIGHT_TARGETS = {
  /** At 2,000 turns in flight: the median turn against the model's own time, per backend. */
  medianToModel: { postgres: 1.25, pglite: 1.5 },
  /** At 2,000: the slowest `/healthz` answers on the API's port (p99), ms. */
  healthP99Ms: 250,
  /** Peak RSS at 2,000 turns in flight, bytes. */
  peakRss2000: 1024 ** 3,
  /** Peak RSS at 5,000 turns in flight on PostgreSQL, bytes. */
  peakRss5000: 2 * 1024 ** 3,
} as const;

/** One level (turns posted at once) on one backend, on a fresh `serve` process. */
export interface TurnsInFlightRow {
  backend: 'pglite' | 'postgres';
  /** POSTs sent at once. */
  turns: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  /** Requests without an answer, by error (`ECONNRESET`, `deadline`, ...). */
  errors: Record<string, number>;
  /** The slowest POST's answer, from the burst's start, ms. */
  lastAnswerMs: number;
  /** Turns recorded for the burst, and of them those that ended `completed`. */
  recorded: number;
  completed: number;
  /** Turn time from its record's start to its end: median and 99th percentile, ms. */
  turnMs: { p50: number; p99: number };
  /** From the burst's start to the turn's recorded end: median and 99th percentile, ms. */
  fromPostMs: { p50: number; p99: number };
  /** From the burst's start to the last turn's end, ms. */
  wallMs: number;
  /** `/healthz` answers polled every 50 ms on the API's port, and on the health port: p50, p99, max, ms. */
  apiHealth: { p50Ms: number; p99Ms: number; maxMs: number; samples: number };
  healthPort: { p50Ms: number; p99Ms: number; maxMs: number; samples: number };
  /** The most turns `/healthz` reported running at once. */
  mostRunning: number;
  /** RSS before the burst and the peak while it ran (sampled every 100 ms), bytes. */
  idleRss: number;
  peakRss: number;
  /** (peak - before) / turns, bytes. */
  rssPerTurn: number;
  /** CPU of the daemon's process and its main thread per completed turn, ms; the PostgreSQL server's too. */
  cpuPerTurnMs: { process: number; thread: number; postgres: number };
  /** The benchmark's own process (the fake model's server, the POSTs) per completed turn, ms. */
  benchCpuPerTurnMs: number;
  /** The share of the machine's cores busy from the burst's start until the daemon was idle (0 to 1). */
  coresBusy: number;
  /** The daemon's event-loop delay over the burst (p50, p99, max, ms). */
  loopDelay: LoopDelay;
  /** PostgreSQL statements per completed turn (`pg_stat_statements`), NaN on PGlite or without it. */
  statementsPerTurn: number;
  /** What did not add up. */
  problems: string[];
}

/** What the turns-in-flight benchmark found. */
export interface TurnsInFlightResult {
  date: string;
  node: string;
  cores: number;
  load: [before: number, after: number];
  /** Model requests per turn (tool calls + 1), and each one's latency, ms. */
  requestsPerTurn: number;
  modelLatencyMs: number;
  rows: TurnsInFlightRow[];
  /**
   * The floor per level: the same turns through a bare `openai` loop in a process of its own, all at
   * once against the same fake model (what this machine's cores allow any client): turn time p50 and
   * p99, ms, and its process's CPU per turn, ms.
   */
  floors: Array<{
    turns: number;
    completed: number;
    turnMs: { p50: number; p99: number };
    cpuPerTurnMs: number;
    /** As the daemon rows': the benchmark's process per turn, ms, and the share of the cores busy. */
    benchCpuPerTurnMs: number;
    coresBusy: number;
  }>;
  skipped: string[];
}

/** Options of the turns-in-flight benchmark. */
export interface TurnsInFlightOptions {
  /** Turns posted at once per level (default 500, 2000, 5000). */
  levels?: readonly number[];
  /** Backends (default both). */
  backends?: ReadonlyArray<'pglite' | 'postgres'>;
  /** The model's latency per request, ms (default 1000). */
  modelLatencyMs?: number;
  /** Tool calls per turn (default 5: 6 model requests). */
  calls?: number;
  /** Node options of `serve` (e.g. `--cpu-prof`). */
  nodeArguments?: readonly string[];
}

const HOME_FILES: Record<string, string> = Object.fromEntries(
  Array.from({ length: 8 }, (_, index) => [`note-${index}.md`, `# Note ${index}\n\nSome text.\n`]),
);

/** The busy daemon's turn (`calls` `list_files`, then a text answer), each response after `latencyMs`. */
function slowListFilesScript(calls: number, latencyMs: number): (request: FakeRequest) => FakeResponse {
  return (request) =>
    request.functionCallOutputs.length < calls
      ? {
          delayMs: latencyMs,
          functionCalls: [{ name: 'list_files', arguments: { pattern: '*' }, chunks: 1 }],
        }
      : { delayMs: latencyMs, text: 'The home holds the notes.', textChunks: 1 };
}

function countBy<T>(values: readonly T[], key: (value: T) => string | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) {
    const name = key(value);
    if (name !== undefined) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

function latencySummary(values: readonly number[]) {
  return {
    p50Ms: percentile(values, 50),
    p99Ms: percentile(values, 99),
    maxMs: values.length === 0 ? Number.NaN : Math.max(...values),
    samples: values.length,
  };
}

function psql(url: string, sql: string): string {
  return execFileSync('psql', [url, '-X', '-q', '-A', '-t', '-c', sql], { encoding: 'utf8' }).trim();
}

/** Waits until `/healthz` (on `url`) reports no running turn; false after `timeoutMs`. */
async function waitUntilIdle(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const health: { runningTurns: number } = await daemonJson(`${url}/healthz`);
      if (health.runningTurns === 0) return true;
    } catch {
      // A refused probe under load: ask again.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** A fresh database in the cluster for one level, with `pg_stat_statements` when it is preloaded. */
function freshDatabase(postgres: ThrowawayPostgres, name: string): { url: string; statements: boolean } {
  psql(postgres.url, `CREATE DATABASE ${name}`);
  const url = postgres.url.replace(/\/postgres$/, `/${name}`);
  if (postgres.statements) psql(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return { url, statements: postgres.statements };
}

/** Statements since the last reset in this database (top level, `BEGIN`/`COMMIT` included). */
function statementCount(url: string): number {
  return Number(
    psql(
      url,
      `SELECT coalesce(sum(s.calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = current_database() AND s.query NOT ILIKE '%pg_stat_statements%'`,
    ),
  );
}

/**
 * The floor of each level: that many turns at once through the bare `openai` loop in a process of
 * its own (`floor-process.ts`), against the same fake model, `list_files` answered from a home of
 * the same files: what this machine allows any client, so a daemon's turn time can be read beside it.
 */
async function floorsOf(
  baseURL: string,
  levels: readonly number[],
  tools: FunctionTool[],
): Promise<TurnsInFlightResult['floors']> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-floor-'));
  const floorProcess = startFloorProcess();
  try {
    for (const [name, text] of Object.entries(HOME_FILES)) await writeFile(path.join(home, name), text);
    const floors: TurnsInFlightResult['floors'] = [];
    for (const turns of levels) {
      const before = readCpu();
      const { result, cpu } = await runFloorLevel(floorProcess, { baseURL, turns, home, tools });
      const used = cpuSince(before);
      const completed = result.turnMs.length;
      const floor = {
        turns,
        completed,
        turnMs: { p50: percentile(result.turnMs, 50), p99: percentile(result.turnMs, 99) },
        cpuPerTurnMs: cpu.floorMs,
        benchCpuPerTurnMs: completed > 0 ? used.ownMs / completed : Number.NaN,
        coresBusy: used.coresBusy,
      };
      floors.push(floor);
      report(
        `floor (bare openai loop), ${turns} in flight`,
        `${floor.completed}/${turns} completed, turn p50 ${(floor.turnMs.p50 / 1000).toFixed(2)} s p99 ${(floor.turnMs.p99 / 1000).toFixed(2)} s`,
        `${floor.cpuPerTurnMs.toFixed(1)} ms CPU a turn${result.failures.length === 0 ? '' : `; failures: ${result.failures.slice(0, 3).join('; ')}`}`,
      );
    }
    return floors;
  } finally {
    await floorProcess.stop();
    await rm(home, { recursive: true, force: true });
  }
}

/** One level on a fresh `serve` process of `database`. */
async function levelOnce(options: {
  database: DaemonDatabase;
  baseURL: string;
  turns: number;
  postgres: { cpuMs(): number; statementsUrl: string | undefined } | undefined;
  nodeArguments: readonly string[] | undefined;
}): Promise<TurnsInFlightRow> {
  const { turns } = options;
  const daemon = await startServeDaemon({
    baseURL: options.baseURL,
    database: options.database,
    homeFiles: HOME_FILES,
    // Room for every turn of the burst: the level measures turns in flight, not shedding.
    serve: { healthPort: 0, maxWaitingWork: turns + 100 },
    loopDelay: true,
    ...(options.nodeArguments === undefined ? {} : { nodeArguments: options.nodeArguments }),
  });
  const problems: string[] = [];
  const healthUrl = daemon.healthUrl === undefined ? daemon.url : new URL(daemon.healthUrl).origin;
  try {
    const warm: { id: string } = await daemonJson(`${daemon.url}/v1/turns`, {
      body: { prompt: 'warm-up turn' },
      expect: 202,
    });
    if (!(await waitUntilIdle(healthUrl, 60_000))) problems.push('the warm-up turn did not end within 60 s');
    await daemon.loopDelay();
    const statementsUrl = options.postgres?.statementsUrl;
    if (statementsUrl !== undefined) psql(statementsUrl, 'SELECT pg_stat_statements_reset()');
    const idleRss = daemon.rss() ?? Number.NaN;
    const cpuBefore = processCpuMs(daemon.pid);
    const threadBefore = mainThreadSchedule(daemon.pid).runMs;
    const postgresBefore = options.postgres?.cpuMs() ?? Number.NaN;
    const rss = sampleRss(daemon.rss);
    const probes = probeHealthElsewhere([daemon.url, healthUrl]);
    await probes.started;
    let probed: ProbeReport[] = [];
    const started = Date.now();
    const cpuAtStart = readCpu();
    let answers: BurstAnswer[];
    let idle: boolean;
    let used: ReturnType<typeof cpuSince>;
    try {
      answers = await postBurst({
        url: `${daemon.url}/v1/turns`,
        count: turns,
        body: (index) => ({ prompt: `turn in flight ${index}` }),
      });
      idle = await waitUntilIdle(healthUrl, 600_000);
      used = cpuSince(cpuAtStart);
    } finally {
      probed = await probes.stop();
    }
    const [apiPolling, healthPolling] = probed as [ProbeReport, ProbeReport];
    const peakRss = rss.stop();
    const loopDelay = await daemon.loopDelay();
    const cpuMs = processCpuMs(daemon.pid) - cpuBefore;
    const threadMs = mainThreadSchedule(daemon.pid).runMs - threadBefore;
    const postgresMs = (options.postgres?.cpuMs() ?? Number.NaN) - postgresBefore;
    const statements = statementsUrl === undefined ? Number.NaN : statementCount(statementsUrl);
    if (!idle) problems.push('turns were still running 600 s after the burst');
    const records = (await listTurns(daemon.url)).filter((turn) => turn.id !== warm.id);
    const accepted = answers.filter((answer) => answer.status === 202).length;
    if (records.length !== accepted)
      problems.push(`${records.length} turns recorded for ${accepted} answers 202`);
    const completed = records.filter((turn) => turn.status === 'completed');
    const otherEnds = countBy(
      records.filter((turn) => turn.status !== 'completed'),
      (turn) => `${turn.status}${turn.error === undefined ? '' : `: ${turn.error.slice(0, 120)}`}`,
    );
    for (const [end, count] of Object.entries(otherEnds)) problems.push(`${count} turn(s) ended ${end}`);
    const ends = completed.map((turn) => Date.parse(turn.endedAt ?? ''));
    const turnTimes = completed.map((turn) => Date.parse(turn.endedAt ?? '') - Date.parse(turn.createdAt));
    const fromPost = ends.map((end) => end - started);
    const answered = answers.filter((answer) => answer.status !== undefined).map((answer) => answer.ms);
    const perTurn = (value: number) => (completed.length > 0 ? value / completed.length : Number.NaN);
    return {
      backend: options.database.kind,
      turns,
      statuses: countBy(answers, (answer) =>
        answer.status === undefined ? undefined : String(answer.status),
      ),
      errors: countBy(answers, (answer) => answer.error),
      lastAnswerMs: answered.length === 0 ? Number.NaN : Math.max(...answered),
      recorded: records.length,
      completed: completed.length,
      turnMs: { p50: percentile(turnTimes, 50), p99: percentile(turnTimes, 99) },
      fromPostMs: { p50: percentile(fromPost, 50), p99: percentile(fromPost, 99) },
      wallMs: ends.length === 0 ? Number.NaN : Math.max(...ends) - started,
      apiHealth: latencySummary(apiPolling.latencies),
      healthPort: latencySummary(healthPolling.latencies),
      mostRunning: Math.max(apiPolling.mostRunning, healthPolling.mostRunning),
      idleRss,
      peakRss,
      rssPerTurn: turns > 0 ? Math.max(0, peakRss - idleRss) / turns : Number.NaN,
      cpuPerTurnMs: { process: perTurn(cpuMs), thread: perTurn(threadMs), postgres: perTurn(postgresMs) },
      benchCpuPerTurnMs: perTurn(used.ownMs),
      coresBusy: used.coresBusy,
      loopDelay,
      statementsPerTurn: perTurn(statements),
      problems,
    };
  } finally {
    await daemon.stop();
  }
}

/**
 * Issue 46's turns in flight: for each level, that many `POST /v1/turns` at once (each on its own
 * connection) to a fresh `switchyard serve` (journal on, the default) per backend, each turn 6 model
 * requests (5 `list_files` calls, then a text answer) that the fake model answers after 1 s each.
 * Reports answers, completion, turn times against the model's own, `/healthz` on both ports, peak
 * RSS and RSS per turn in flight, CPU and PostgreSQL statements per turn.
 */
export async function turnsInFlight(options: TurnsInFlightOptions = {}): Promise<TurnsInFlightResult> {
  const levels = options.levels ?? [500, 2000, 5000];
  const calls = options.calls ?? 5;
  const modelLatencyMs = options.modelLatencyMs ?? 1000;
  const before = os.loadavg()[0] ?? Number.NaN;
  const script = slowListFilesScript(calls, modelLatencyMs);
  let tools: FunctionTool[] | undefined;
  const fake = await startFakeResponsesServer({
    record: false,
    script: (request) => {
      // The daemon's own tools array, so the floor's requests carry the same bytes.
      tools ??= request.body.tools as unknown as FunctionTool[];
      return script(request);
    },
  });
  heading(
    `Turns in flight: ${levels.join(', ')} turns at once, ${calls + 1} model requests of ${modelLatencyMs} ms (load ${before.toFixed(1)})`,
  );
  const rows: TurnsInFlightRow[] = [];
  const floors: TurnsInFlightResult['floors'] = [];
  const skipped: string[] = [];
  try {
    for (const backend of options.backends ?? (['pglite', 'postgres'] as const)) {
      let cluster: ThrowawayPostgres | undefined;
      if (backend === 'postgres') {
        const started = await startThrowawayPostgres({ statements: true });
        if ('skipped' in started) {
          skipped.push(`PostgreSQL: ${started.skipped}`);
          report('postgres', 'skipped', started.skipped);
          continue;
        }
        cluster = started;
      }
      try {
        for (const turns of levels) {
          let database: DaemonDatabase = { kind: 'pglite' };
          let statementsUrl: string | undefined;
          if (cluster !== undefined) {
            const fresh = freshDatabase(cluster, `in_flight_${turns}`);
            database = { kind: 'postgres', url: fresh.url };
            statementsUrl = fresh.statements ? fresh.url : undefined;
          }
          let row: TurnsInFlightRow;
          try {
            row = await levelOnce({
              database,
              baseURL: fake.baseURL,
              turns,
              postgres: cluster === undefined ? undefined : { cpuMs: cluster.cpuMs, statementsUrl },
              nodeArguments: options.nodeArguments,
            });
          } catch (error) {
            // A level that cannot start (a limit of this machine) is reported; the other levels still run.
            const reason = String((error as Error).message)
              .split('\n')
              .filter((line) => line.startsWith('switchyard:'))
              .join(' ');
            skipped.push(
              `${backend}, ${turns} in flight: ${reason || (error as Error).message.slice(0, 300)}`,
            );
            report(`${backend}, ${turns} in flight`, 'skipped', reason);
            continue;
          }
          rows.push(row);
          report(
            `${backend}, ${turns} in flight`,
            `${row.completed}/${turns} completed, turn p50 ${(row.turnMs.p50 / 1000).toFixed(2)} s p99 ${(row.turnMs.p99 / 1000).toFixed(2)} s`,
            `healthz p99 api ${row.apiHealth.p99Ms.toFixed(0)} ms, health port ${row.healthPort.p99Ms.toFixed(0)} ms; peak RSS ${(row.peakRss / 2 ** 20).toFixed(0)} MB; ${row.cpuPerTurnMs.process.toFixed(1)} ms CPU a turn${Number.isFinite(row.statementsPerTurn) ? `; ${row.statementsPerTurn.toFixed(1)} statements a turn` : ''}${row.problems.length === 0 ? '' : `; ${row.problems.join('; ')}`}`,
          );
        }
      } finally {
        await cluster?.stop();
      }
    }
    if (tools !== undefined) floors.push(...(await floorsOf(fake.baseURL, levels, tools)));
  } finally {
    await fake.close();
  }
  return { ...machineNow(before), requestsPerTurn: calls + 1, modelLatencyMs, rows, floors, skipped };
}
