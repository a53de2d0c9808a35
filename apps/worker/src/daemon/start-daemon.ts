import { type ConsoleSite, readConsoleFiles } from './console-files';
import {
  type CheckRequest,
  closeServer,
  type DaemonListener,
  listenApi,
  listenHealth,
  shutDownServer,
} from './daemon-listeners';
import { checkDaemonOptions, type DaemonOptions } from './daemon-options';
import { DaemonTurns } from './daemon-turns';
import { drainDaemon } from './drain-daemon';
import { createHealthApp } from './health-app';
import { createDaemonHttpApi } from './http/daemon-http-api';
import { LoadShedder } from './load-shedder';
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_EVENT_STREAMS } from './memory-limits';
import { readOpenFileLimit } from './open-file-limit';
import { stopWorkOnLockLost } from './stop-work-on-lock-lost';
import { continueAnsweredTurns, resumeInterruptedTurns, sweepInterruptedTurns } from './turn-recovery';
import { resolveWaitingWorkBound, type WaitingWorkBound } from './waiting-work-bound';
import { type RunDaemonTurn, scheduleFireSource, type WorkSource } from './work-source';

export { checkTokenForHost, type DaemonOptions, isLoopbackHost } from './daemon-options';

/** What `daemon.stop()` reports. */
export interface DaemonStopReport {
  /** Turns that were still running when the grace period ended, and were cancelled. */
  cancelled: number;
  /** Turns that were running at `stop()` and finished within the grace period. */
  finished: number;
  /** Turns waiting for approval that were let go (another process continues each once answered). */
  released: number;
}

/** A running daemon. */
export interface Daemon {
  /** `http://host:port` of the HTTP API. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** `http://host:port/healthz` of the health listener (`healthPort`); undefined without one. */
  readonly healthUrl: string | undefined;
  /** The daemon's turns (recent ones in memory, every one in the control plane's turn records). */
  readonly turns: DaemonTurns;
  /**
   * `serving`; `lock-lost` once the control plane reported its embedded database's lock lost (no new
   * work is taken: see `stopWorkOnLockLost`); `draining` after `stop()` began, `stopped` when it resolved.
   */
  readonly state: 'serving' | 'lock-lost' | 'draining' | 'stopped';
  /**
   * Stops taking work (HTTP `POST /v1/turns` gets 503, the queues stop delivering), lets running
   * turns finish within `graceMs`, cancels the rest (their queue units are retried), then closes
   * the HTTP server. Idempotent.
   */
  stop(): Promise<DaemonStopReport>;
}

/** How often expired Idempotency-Keys are deleted, in ms. */
const KEY_SWEEP_MS = 60_000;

/** The daemon's state, which its steps share (`Daemon.state`). */
interface DaemonStatus {
  state: Daemon['state'];
}

/** What the API and `/healthz` report: a stopped daemon no longer answers them anyway. */
function reportedStateOf(status: DaemonStatus): () => 'serving' | 'lock-lost' | 'draining' {
  return () => (status.state === 'serving' || status.state === 'lock-lost' ? status.state : 'draining');
}

/** The daemon's turns, recorded in the control plane, under its agents' approval policies. */
function createTurns(options: DaemonOptions, sources: readonly WorkSource[]): DaemonTurns {
  const { approvals: _approvals, budgets, ...turnOptions } = options;
  return new DaemonTurns({
    ...turnOptions,
    records: options.controlPlane.turns,
    ...(budgets === undefined ? {} : { budgets: { ...budgets, store: options.controlPlane.budgets } }),
    journals: options.controlPlane.journals,
    // journal: false writes no journal, but a held turn's, from its hold: it continues from it.
    ...(options.journal === false ? { journalHeldTurnsOnly: true } : {}),
    ...(options.approvals === undefined
      ? {}
      : {
          approvals: {
            store: options.controlPlane.approvals,
            policy: options.approvals.policy,
            ...(options.approvals.pollMs === undefined ? {} : { pollMs: options.approvals.pollMs }),
            ...(options.approvals.fileBefore === undefined
              ? {}
              : { fileBefore: options.approvals.fileBefore }),
          },
        }),
    // A task or job turn continued here gets its own tools back from its source.
    resumeRequest: (record, context) => {
      for (const source of sources) {
        const rebuilt = source.resumeRequest?.(record, context);
        if (rebuilt !== undefined) return rebuilt;
      }
      return undefined;
    },
  });
}

/**
 * How a queued unit runs as a turn: it returns to its queue when the turn ends, or as soon as a held
 * call detached the unit from its delivery (the turn's end settles the unit then, wherever it ends).
 */
function runTurnOf(turns: DaemonTurns): RunDaemonTurn {
  return async (request) => {
    const { id, done, detached } = await turns.start(request);
    return Promise.race([
      done,
      detached.then(
        () => ({ ...(turns.get(id) ?? { id }), status: 'waiting-approval' as const }) as Awaited<typeof done>,
      ),
    ]);
  };
}

/** Recovery of the work of processes that stopped, as this daemon runs it. */
interface DaemonRecovery {
  /** `staleTurnMs`: a turn whose heartbeat is older belongs to a process that stopped. */
  staleTurnMs: number;
  /** The same for claiming and at start-up, 0 on embedded PGlite (one process's database). */
  othersStaleMs: number;
  /** Marks interrupted the turns of workers silent for `staleAfterMs`, handing their units back. */
  sweepInterrupted(staleAfterMs: number): Promise<void>;
  /** Claims and continues the answered turns left waiting by a process that stopped (while serving, with approvals). */
  continueAnswered(): Promise<void>;
}

function recoveryOf(
  options: DaemonOptions,
  turns: DaemonTurns,
  status: DaemonStatus,
  log: (line: string) => void,
): DaemonRecovery {
  const staleTurnMs = options.staleTurnMs ?? 60_000;
  // Embedded PGlite is one process's database: every other worker's turn there is a stopped process's
  // (another daemon in this process may be running turns: those are kept).
  const othersStaleMs = options.controlPlane.kind === 'pglite' ? 0 : staleTurnMs;
  const { controlPlane } = options;
  return {
    staleTurnMs,
    othersStaleMs,
    sweepInterrupted: async (staleAfterMs) => {
      // API turns of this daemon's agents first: taken over and resumed here, never marked (a turn
      // that goes stale between the claim and the sweep, or while this process drains, is left for
      // the next claim: marked `interrupted`, no process could resume it).
      const resumesApiTurns = options.resumeApiTurns !== false && options.journal !== false;
      if (resumesApiTurns && status.state === 'serving') {
        await resumeInterruptedTurns({
          records: controlPlane.turns,
          turns,
          staleAfterMs,
          agentIds: options.agents,
        });
      }
      await sweepInterruptedTurns({
        records: controlPlane.turns,
        workerId: turns.workerId,
        staleAfterMs,
        ...(resumesApiTurns ? { resumedApiAgents: options.agents } : {}),
        log,
      });
    },
    continueAnswered: async () => {
      if (options.approvals === undefined || status.state !== 'serving') return;
      await continueAnsweredTurns({
        store: controlPlane.approvals,
        turns,
        staleAfterMs: othersStaleMs,
        agentIds: options.agents,
      });
    },
  };
}

/** The console's files as `serve.console` asks (read once), saying when it was not built. */
async function readConsole(options: DaemonOptions, log: (line: string) => void): Promise<ConsoleSite> {
  const consoleOption = options.console ?? true;
  const consoleSite =
    consoleOption === false
      ? ({ status: 'disabled' } as const)
      : await readConsoleFiles(consoleOption === true ? undefined : consoleOption.directory);
  if (consoleSite.status === 'not-built') {
    log(
      `switchyard serve: the console was not built (no ${consoleSite.directory}/index.html): / answers 404`,
    );
  }
  return consoleSite;
}

/**
 * Serves the HTTP API over the daemon's turns and control plane on `host:port`, shedding load past
 * the waiting-work bound and holding at most its connections.
 */
function listenApiPort(
  options: DaemonOptions,
  parts: {
    turns: DaemonTurns;
    status: DaemonStatus;
    consoleSite: ConsoleSite;
    waitingWork: WaitingWorkBound;
    log: (line: string) => void;
  },
): Promise<DaemonListener> {
  const { turns, status, consoleSite, waitingWork, log } = parts;
  return listenApi({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8787,
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    maxConnections: waitingWork.maxConnections,
    log,
    buildApp: (checkRequest) =>
      createApi(options, { turns, status, consoleSite, checkRequest, waitingWork, log }),
  });
}

/** The HTTP API over the daemon's turns and control plane, shedding load past `maxWaitingWork`. */
function createApi(
  options: DaemonOptions,
  parts: {
    turns: DaemonTurns;
    status: DaemonStatus;
    consoleSite: ConsoleSite;
    checkRequest: CheckRequest;
    waitingWork: WaitingWorkBound;
    log: (line: string) => void;
  },
) {
  const { turns, status, consoleSite, log } = parts;
  return createDaemonHttpApi({
    turns,
    shedder: new LoadShedder({
      maxWaitingWork: parts.waitingWork.maxWaitingWork,
      runningTurns: () => turns.running,
      log,
    }),
    console: consoleSite,
    ...(options.toolManifest === undefined ? {} : { toolManifest: options.toolManifest }),
    ...(options.budgets === undefined ? {} : { budgets: options.budgets.of }),
    controlPlane: options.controlPlane,
    checkRequest: parts.checkRequest,
    startTurn: async (request, startOptions) =>
      status.state === 'serving' ? turns.start(request, startOptions) : undefined,
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.readToken === undefined ? {} : { readToken: options.readToken }),
    defaultAgent: options.agents[0] as string,
    agents: options.agents,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    maxEventStreams: options.maxEventStreams ?? DEFAULT_MAX_EVENT_STREAMS,
    ...(options.maxEventStreamBytes === undefined
      ? {}
      : { maxEventStreamBytes: options.maxEventStreamBytes }),
    state: reportedStateOf(status),
    ...(options.commandSandbox === undefined ? {} : { commandSandbox: options.commandSandbox }),
    ...(options.scriptedModel === undefined ? {} : { scriptedModel: options.scriptedModel }),
    version: options.version ?? '0.0.0',
    // The heartbeat's timer also claims answered turns that were let go (`startHousekeeping`).
    continueAnsweredWithinMs: options.heartbeatMs ?? 10_000,
    log,
  });
}

/** The health listener when `healthPort` is set; when it cannot listen, the API's listener is closed too. */
async function listenHealthPort(
  options: DaemonOptions,
  turns: DaemonTurns,
  status: DaemonStatus,
  api: DaemonListener,
): Promise<DaemonListener | undefined> {
  if (options.healthPort === undefined) return undefined;
  try {
    return await listenHealth({
      host: options.host ?? '127.0.0.1',
      port: options.healthPort,
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      buildApp: (checkRequest) =>
        createHealthApp({
          checkRequest,
          state: reportedStateOf(status),
          runningTurns: () => turns.running,
          ...(options.commandSandbox === undefined ? {} : { commandSandbox: options.commandSandbox }),
          ...(options.scriptedModel === undefined ? {} : { scriptedModel: options.scriptedModel }),
        }),
    });
  } catch (error) {
    await closeServer(api.server);
    throw error;
  }
}

/**
 * Starts consuming every source, then the scheduler; when one cannot start, stops those started
 * and closes the listeners (`closeListeners`) before rethrowing. Resolves with the sources started.
 */
async function startWork(
  options: DaemonOptions,
  sources: readonly WorkSource[],
  runTurn: RunDaemonTurn,
  closeListeners: () => Promise<void>,
): Promise<WorkSource[]> {
  const started: WorkSource[] = [];
  try {
    for (const source of sources) {
      await source.start(runTurn);
      started.push(source);
    }
    if (options.scheduler !== false)
      options.controlPlane.scheduler.start({ intervalMs: options.scheduler?.intervalMs });
  } catch (error) {
    await Promise.allSettled(started.map((source) => source.stop()));
    await closeListeners();
    throw error;
  }
  return started;
}

/**
 * The timers of a serving daemon: the heartbeat of its turns (then the sweep of stopped workers'
 * turns and the claiming of answered ones), and the sweep of expired Idempotency-Keys. Returns what
 * stops them.
 */
function startHousekeeping(
  options: DaemonOptions,
  turns: DaemonTurns,
  recovery: DaemonRecovery,
  log: (line: string) => void,
): () => void {
  const heartbeat = setInterval(() => {
    turns
      .heartbeat()
      .then(() => recovery.sweepInterrupted(recovery.staleTurnMs))
      // On embedded PGlite another worker's waiting turn is a stopped process's: continue it at once.
      .then(() => recovery.continueAnswered())
      .catch((error: unknown) => log(`switchyard serve: turn heartbeat failed: ${String(error)}`));
  }, options.heartbeatMs ?? 10_000);
  heartbeat.unref();
  // Idempotency-Keys past their lifetime are already treated as new: this only keeps the table small.
  const sweepKeys = setInterval(() => {
    options.controlPlane.idempotency
      .sweepExpired()
      .catch((error: unknown) => log(`switchyard serve: Idempotency-Key sweep failed: ${String(error)}`));
  }, KEY_SWEEP_MS);
  sweepKeys.unref();
  return () => {
    clearInterval(heartbeat);
    clearInterval(sweepKeys);
  };
}

/** Another process may open an embedded database whose lock is gone: from then on no work is taken here. */
function stopWorkOnLockLoss(
  options: DaemonOptions,
  status: DaemonStatus,
  started: readonly WorkSource[],
  log: (line: string) => void,
): void {
  stopWorkOnLockLost(options.controlPlane, {
    serving: () => status.state === 'serving',
    refuseNewWork: () => {
      status.state = 'lock-lost';
    },
    stopClaiming: async () => {
      await options.controlPlane.scheduler.stop();
      await Promise.all(started.map((source) => source.stop()));
    },
    log,
  });
}

/** The start-up lines of the log: which worker, where it listens for which agents, and any lowered bound. */
function logServing(parts: {
  options: DaemonOptions;
  turns: DaemonTurns;
  api: DaemonListener;
  health: DaemonListener | undefined;
  waitingWork: WaitingWorkBound;
  log: (line: string) => void;
}): void {
  const { log } = parts;
  // The id its turn records carry: recovery log lines name a dead process's turns by it.
  log(`switchyard serve: worker ${parts.turns.workerId}`);
  log(`switchyard serve: listening on ${parts.api.url} for ${parts.options.agents.join(', ')}`);
  if (parts.health !== undefined) log(`switchyard serve: health checks on ${parts.health.url}`);
  if (parts.waitingWork.lowered !== undefined) log(`switchyard serve: ${parts.waitingWork.lowered}`);
}

/**
 * Starts the worker's daemon: consumes schedule fires (and any further `sources`: background jobs,
 * workflow tasks) from the control plane and runs each as a turn with core's loop, and serves the
 * HTTP API (turns, approvals, workflows, `/v1/events`, `/v1/openapi.json`, `/healthz`: see
 * `createDaemonHttpApi`). With `approvals`, each call follows its agent's policy; a held call waits
 * for an answer from any process, and turns left waiting by a process that stopped are continued here
 * once answered.
 *
 * Contract: throws `WorkerConfigError` naming the field (`serve.port`, `serve.agents[1]`, ...) for
 * bad options, and `serve.token` when `host` is not loopback and no token is set. A turn that does not finish (cancelled at shutdown, failed) is handed back to
 * its queue, which delivers it again: nothing is lost. `stop()` lets turns waiting for approval go
 * (another process continues each) instead of cancelling them. When the control plane reports its
 * embedded database's lock lost (`controlPlane.lockLost`), the daemon takes no new work from then on
 * (state `lock-lost`: see `stopWorkOnLockLost`).
 *
 * @example
 * const controlPlane = await openControlPlane({ dataDir: '.switchyard/db' });
 * const model = createResponsesModel({ client: new OpenAI(), model: 'gpt-5.4-mini' });
 * const daemon = await startDaemon({
 *   controlPlane,
 *   model,
 *   agents: ['ada'],
 *   tools: ({ agentId }) => createScheduleTools({ scheduleService: controlPlane.schedules, agentId }),
 * });
 * process.once('SIGTERM', async () => {
 *   await daemon.stop();
 *   await controlPlane.close();
 * });
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  checkDaemonOptions(options);
  const waitingWork = resolveWaitingWorkBound(options.maxWaitingWork, readOpenFileLimit());
  const log = options.log ?? (() => {});
  const status: DaemonStatus = { state: 'serving' };
  const sources = [scheduleFireSource(options.controlPlane, options.agents), ...(options.sources ?? [])];
  const turns = createTurns(options, sources);
  const recovery = recoveryOf(options, turns, status, log);
  // Turns left running by processes that stopped (on embedded PGlite: every other worker's).
  await recovery.sweepInterrupted(recovery.othersStaleMs);
  const consoleSite = await readConsole(options, log);
  const api = await listenApiPort(options, { turns, status, consoleSite, waitingWork, log });
  const health = await listenHealthPort(options, turns, status, api);
  const started = await startWork(options, sources, runTurnOf(turns), async () => {
    await closeServer(api.server);
    if (health !== undefined) await shutDownServer(health.server);
  });
  stopWorkOnLockLoss(options, status, started, log);
  await recovery
    .continueAnswered()
    .catch((error: unknown) =>
      log(`switchyard serve: could not continue turns waiting for approval: ${String(error)}`),
    );
  const stopHousekeeping = startHousekeeping(options, turns, recovery, log);
  let stopping: Promise<DaemonStopReport> | undefined;
  const stop = () =>
    drainDaemon({
      setState: (state) => {
        status.state = state;
      },
      turns,
      stopScheduler: () => options.controlPlane.scheduler.stop(),
      sources: started,
      graceMs: options.graceMs ?? 30_000,
      stopHousekeeping,
      closeListeners: async () => {
        await shutDownServer(api.server);
        if (health !== undefined) await shutDownServer(health.server);
      },
      log,
    });
  const daemon: Daemon = {
    url: api.url,
    port: api.port,
    healthUrl: health?.url,
    turns,
    get state() {
      return status.state;
    },
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
  try {
    await options.beforeReady?.(api.url);
  } catch (error) {
    await daemon.stop();
    throw error;
  }
  logServing({ options, turns, api, health, waitingWork, log });
  return daemon;
}
