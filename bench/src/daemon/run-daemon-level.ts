import type { BusyDaemonRow, TurnCpu } from '../suites/busy-daemon';
import { daemonJson, listTurns, type TurnRecord } from './daemon-requests';
import { mostConcurrent, msPer, percentile, perSecond, rssPerTurn, summariseLatency } from './daemon-stats';
import { type HealthPolling, pollHealth } from './poll-health';
import { mainThreadSchedule, processCpuMs } from './process-cpu';
import { sampleRss } from './sample-rss';
import type { ServeDaemon } from './serve-daemon';

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

/** Posts `turns` API turns at once; when each POST was sent, by the turn's id. */
async function postTurns(daemon: ServeDaemon, turns: number): Promise<Map<string, number>> {
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
  return postedAt;
}

/**
 * Every turn is running once its POST was answered: waits for a /healthz answer given after that
 * saying none is left, or until `timeoutMs` has passed.
 */
async function waitUntilIdle(health: HealthPolling, timeoutMs: number): Promise<void> {
  const answersAfterPosts = health.latencies.length + 1;
  const deadline = Date.now() + timeoutMs;
  while (!(health.latencies.length > answersAfterPosts && health.running === 0)) {
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The level's problem when some turns did not complete: how many, their statuses and first errors. */
function notCompleted(records: readonly TurnRecord[], turns: number, completed: number): string[] {
  if (completed === turns) return [];
  const statuses = new Map<string, number>();
  for (const turn of records) statuses.set(turn.status, (statuses.get(turn.status) ?? 0) + 1);
  const errors = [
    ...new Set(records.flatMap((turn) => (turn.error === undefined ? [] : [turn.error.split('\n')[0]]))),
  ];
  return [
    `${turns - completed} of ${turns} turns not completed (${[...statuses].map(([status, count]) => `${status} ${count}`).join(', ')}; ${errors.slice(0, 2).join('; ')})`,
  ];
}

/** `/healthz` latency as one poller saw it: p50, p99, max (NaN without one), samples. */
function healthFigures(polling: HealthPolling | undefined) {
  const latencies = polling?.latencies ?? [];
  return {
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: polling === undefined ? Number.NaN : Math.max(...latencies),
    samples: latencies.length,
  };
}

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
  const postedAt = await postTurns(daemon, turns);
  await waitUntilIdle(health, options.timeoutMs ?? 300_000);
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
  const api = healthFigures(health);
  return {
    turns,
    completed: completed.length,
    turnsPerSecond: perSecond(completed.length, lastEnd - startWall),
    latency: summariseLatency(turnMs, modelMs),
    rssPerTurnBytes: rssPerTurn(peak, idle, mostRunning),
    peakRssBytes: peak,
    mostRunning,
    healthP50Ms: api.p50Ms,
    healthP99Ms: api.p99Ms,
    healthMaxMs: api.maxMs,
    healthSamples: api.samples,
    healthPort: healthFigures(healthPort),
    loopDelay,
    cpu: {
      daemonMs: msPer(cpuMs, completed.length),
      daemonThreadMs: msPer(threadMs, completed.length),
      daemonThreadRunning: levelMs > 0 ? threadMs / levelMs : Number.NaN,
      daemonThreadWaiting: levelMs > 0 ? (threadAfter.waitMs - threadBefore.waitMs) / levelMs : Number.NaN,
      postgresMs: msPer(serverMs, completed.length),
    },
    problems: notCompleted(records, turns, completed.length),
  };
}
