import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { ControlPlane } from '@switchyard/control-plane';
import { AGENT_ID_PATTERN } from '@switchyard/control-plane';
import type { CommandSandboxReport } from '../config/command-sandbox';
import type { ApprovalPolicy } from '../config/worker-config';
import { WorkerConfigError } from '../config/worker-config-error';
import type { ToolManifest } from '../tool-manifest';
import { boundConnections } from './bound-connections';
import { readConsoleFiles } from './console-files';
import { type DaemonTurnRunnerOptions, DaemonTurns } from './daemon-turns';
import { createHealthApp } from './health-app';
import { createDaemonHttpApi } from './http/daemon-http-api';
import { LoadShedder } from './load-shedder';
import { readOpenFileLimit } from './open-file-limit';
import { createRequestGuard, parseHostAndPort, type RequestRefusal } from './request-guard';
import { stopWorkOnLockLost } from './stop-work-on-lock-lost';
import { resolveWaitingWorkBound } from './waiting-work-bound';
import { type RunDaemonTurn, scheduleFireSource, type WorkSource } from './work-source';

/** What `startDaemon` takes. */
export interface DaemonOptions
  extends Omit<DaemonTurnRunnerOptions, 'approvals' | 'records' | 'resumeRequest'> {
  /** The open control plane: schedules fire from it, turn requests are consumed from it. */
  controlPlane: ControlPlane;
  /** The agents whose work this daemon consumes; the first is the API's default agent. */
  agents: readonly string[];
  /** Where the HTTP API listens. Default `127.0.0.1`. */
  host?: string;
  /** The HTTP port; 0 picks a free one. Default 8787. */
  port?: number;
  /**
   * A port of its own for `GET /healthz` (`serve.healthPort`), on the same host: a liveness probe
   * there is answered within a turn of the event loop even while a burst of new connections waits
   * on the API's port (Node accepts one per turn). 0 picks a free one. Default: none (`/healthz`
   * is on the API's port, as it stays when this is set).
   */
  healthPort?: number;
  /**
   * The bearer token the HTTP API requires (`Authorization: Bearer <token>`). Required when `host`
   * is not a loopback address; honoured on loopback too when set.
   */
  token?: string;
  /** A read-only bearer token: it may only `GET`. Needs `token`, and must differ from it. */
  readToken?: string;
  /**
   * Approval policies for the calls of every turn: `policy(agentId)` says, from each tool's metadata,
   * which calls run, which are refused and which wait for an operator's answer (recorded in the
   * control plane, answerable from any process). Absent: every validated call runs.
   */
  approvals?: { policy(agentId: string): ApprovalPolicy; pollMs?: number };
  /** The version the OpenAPI document names. Default `0.0.0`. */
  version?: string;
  /**
   * Host names the HTTP API answers to besides its listen address, `localhost`, `127.0.0.1` and
   * `[::1]` (`serve.allowedHosts`): `name` (any port) or `name:port`. Any other `Host` gets 421.
   */
  allowedHosts?: readonly string[];
  /** How long running turns may take to finish after `stop()` before they are cancelled, in ms. Default 30 000. */
  graceMs?: number;
  /** Tick the scheduler in this process (every `intervalMs`, default 1000), or `false`. Default on. */
  scheduler?: { intervalMs?: number } | false;
  /**
   * More work to consume besides schedule fires: background jobs and workflow tasks are one
   * `WorkSource` each (built from the same control plane).
   */
  sources?: readonly WorkSource[];
  /**
   * The operator console at `/` (`serve.console`): `true` serves the built console beside the CLI
   * (`dist/console`), `{ directory }` the one in that folder, `false` nothing. Read once at start-up.
   * Default `true`.
   */
  console?: boolean | { directory: string };
  /**
   * The tool manifest an agent's next text turn would send (`buildToolManifest`), answered at
   * `GET /v1/tools`; without it that route answers 501.
   */
  toolManifest?: (agent: string) => ToolManifest | Promise<ToolManifest>;
  /** Largest HTTP request body, in bytes. Default 64 KiB. */
  maxBodyBytes?: number;
  /**
   * The bound of work waiting in this process (`serve.maxWaitingWork`): API requests not yet
   * answered, plus turns running. A `POST /v1/turns` or `POST /v1/workflows` that would go past it,
   * or any other request once requests alone reach it, is answered `503` with `Retry-After` and
   * does nothing (`/healthz` is always answered). Default 1000, or less when the process's open-file
   * limit has no room for it (4 files a unit beside 256); a value it has no room for is refused.
   */
  maxWaitingWork?: number;
  /**
   * The most bytes an HTTP event stream (`/v1/events`, `/v1/turns/{id}/events`) holds for its reader
   * (`serve.maxEventStreamBytes`): a reader further behind gets `event: overflow` and its stream
   * ends. At least 16 KiB. Default 4 MiB.
   */
  maxEventStreamBytes?: number;
  /**
   * Whether the agents' commands run in the sandbox, as `/healthz` reports it (`watchCommandSandbox`).
   * Default: not reported.
   */
  commandSandbox?: () => CommandSandboxReport;
  /** Receives one-line log messages (start, shutdown, cancelled turns). Default: none. */
  log?: (line: string) => void;
  /** How often this process's running turns are marked alive in the turn records, in ms. Default 10 000. */
  heartbeatMs?: number;
  /**
   * A running turn whose heartbeat is older than this is marked `interrupted` (its process died), in
   * ms. Default 60 000. On embedded PGlite, which one process opens at a time, every turn left
   * running is marked at start-up.
   */
  staleTurnMs?: number;
}

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
/** The HTTP API's listen backlog (see where it listens). */
const LISTEN_BACKLOG = 4096;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '::ffff:127.0.0.1']);

/** Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Refuses a non-loopback `host` without a token.
 *
 * Contract: throws naming `serve.token` and the variable that sets it (`tokenVariable`, default
 * `SWITCHYARD_SERVE_TOKEN`).
 */
export function checkTokenForHost(
  host: string,
  token: string | undefined,
  tokenVariable = 'SWITCHYARD_SERVE_TOKEN',
): void {
  if (!isLoopbackHost(host) && token === undefined) {
    throw new WorkerConfigError({
      issues: [
        {
          field: 'serve.token',
          message: `a bearer token is required to listen on ${host} (not a loopback address): set ${tokenVariable} (at least 16 characters), or listen on 127.0.0.1`,
        },
      ],
    });
  }
}

/** A daemon option is wrong: the same marked error as a bad configuration file, naming the field. */
function refuse(field: string, message: string): never {
  throw new WorkerConfigError({ issues: [{ field, message }] });
}

/** Refuses a byte limit that is not a whole number of at least `least`. */
function checkByteLimit(field: string, value: number | undefined, least: number): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= least)) {
    refuse(field, `expected a whole number of bytes >= ${least}, got ${String(value)}`);
  }
}

function checkOptions(options: DaemonOptions): void {
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') refuse('serve.host', 'expected a host name or address');
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token.length < 16)) {
    refuse('serve.token', 'expected a string of at least 16 characters');
  }
  if (options.readToken !== undefined) {
    if (typeof options.readToken !== 'string' || options.readToken.length < 16) {
      refuse('serve.readToken', 'expected a string of at least 16 characters');
    }
    if (options.token === undefined || options.readToken === options.token) {
      refuse('serve.readToken', 'needs the bearer token too, and must differ from it');
    }
  }
  checkTokenForHost(host, options.token);
  const port = options.port ?? 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    refuse('serve.port', `expected an integer from 0 to 65535, got ${String(port)}`);
  }
  const healthPort = options.healthPort;
  if (healthPort !== undefined) {
    if (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65_535) {
      refuse('serve.healthPort', `expected an integer from 0 to 65535, got ${String(healthPort)}`);
    }
    if (healthPort !== 0 && healthPort === port) {
      refuse('serve.healthPort', `must differ from serve.port (both ${port})`);
    }
  }
  for (const [index, entry] of (options.allowedHosts ?? []).entries()) {
    if (typeof entry !== 'string' || parseHostAndPort(entry) === undefined) {
      refuse(
        `serve.allowedHosts[${index}]`,
        `expected a host name or address, optionally with :port, got ${JSON.stringify(entry)}`,
      );
    }
  }
  const consoleOption = options.console;
  if (
    consoleOption !== undefined &&
    typeof consoleOption !== 'boolean' &&
    !(
      typeof consoleOption === 'object' &&
      consoleOption !== null &&
      typeof consoleOption.directory === 'string'
    )
  ) {
    refuse('serve.console', `expected true or false, got ${JSON.stringify(consoleOption)}`);
  }
  if (!Array.isArray(options.agents) || options.agents.length === 0) {
    refuse('serve.agents', 'name at least one agent whose work this daemon runs');
  }
  for (const [index, agent] of options.agents.entries()) {
    if (typeof agent !== 'string' || !AGENT_ID_PATTERN.test(agent)) {
      refuse(`serve.agents[${index}]`, `${JSON.stringify(agent)} does not match ${AGENT_ID_PATTERN}`);
    }
  }
  for (const field of ['graceMs', 'heartbeatMs', 'staleTurnMs'] as const) {
    const value = options[field];
    if (value !== undefined && !(Number.isFinite(value) && value >= (field === 'graceMs' ? 0 : 1))) {
      refuse(
        `serve.${field}`,
        `expected a number of milliseconds >= ${field === 'graceMs' ? 0 : 1}, got ${String(value)}`,
      );
    }
  }
  checkByteLimit('serve.maxEventStreamBytes', options.maxEventStreamBytes, 16 * 1024);
  checkByteLimit('serve.maxRetainedTurnBytes', options.maxRetainedTurnBytes, 0);
  if ((options.staleTurnMs ?? 60_000) <= (options.heartbeatMs ?? 10_000)) {
    refuse(
      'serve.staleTurnMs',
      'must be longer than serve.heartbeatMs, or live turns would be marked interrupted',
    );
  }
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
  checkOptions(options);
  const waitingWork = resolveWaitingWorkBound(options.maxWaitingWork, readOpenFileLimit());
  const log = options.log ?? (() => {});
  const host = options.host ?? '127.0.0.1';
  const graceMs = options.graceMs ?? 30_000;
  const sources = [scheduleFireSource(options.controlPlane, options.agents), ...(options.sources ?? [])];
  const { approvals: _approvals, ...turnOptions } = options;
  const turns = new DaemonTurns({
    ...turnOptions,
    records: options.controlPlane.turns,
    ...(options.approvals === undefined
      ? {}
      : {
          approvals: {
            store: options.controlPlane.approvals,
            policy: options.approvals.policy,
            ...(options.approvals.pollMs === undefined ? {} : { pollMs: options.approvals.pollMs }),
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
  let state: Daemon['state'] = 'serving';
  // What the API and /healthz report: a stopped daemon no longer answers them anyway.
  const reportedState = () => (state === 'serving' || state === 'lock-lost' ? state : 'draining');
  // A queued unit's turn returns to its queue when it ends, or as soon as a held call detached the
  // unit from its delivery (the turn's end settles the unit then, wherever it ends).
  const runTurn: RunDaemonTurn = async (request) => {
    const { id, done, detached } = await turns.start(request);
    return Promise.race([
      done,
      detached.then(
        () => ({ ...(turns.get(id) ?? { id }), status: 'waiting-approval' as const }) as Awaited<typeof done>,
      ),
    ]);
  };
  const staleTurnMs = options.staleTurnMs ?? 60_000;
  // Marks the turns of workers that stopped heartbeating (died) interrupted, which hands the unit
  // each one ran back to its queue, and says which, and what became of each unit.
  const sweepInterrupted = async (staleAfterMs: number): Promise<void> => {
    const marked = await options.controlPlane.turns.markInterrupted({
      staleAfterMs,
      exceptWorkerId: turns.workerId,
    });
    if (marked.length > 0) {
      const ids = marked.map((record) => record.id).join(', ');
      log(`switchyard serve: marked ${marked.length} turn(s) interrupted (their worker stopped): ${ids}`);
    }
    for (const { id, recovery } of marked) {
      if (recovery === undefined) continue;
      log(
        `switchyard serve: recovery: ${recovery.unit} ${recovery.unitId}, attempt ${recovery.attempt} (turn ${id}, previous worker ${recovery.previousWorkerId}): ${recovery.outcome}: ${recovery.description}`,
      );
    }
  };
  // Turns left waiting for approval by a process that stopped (let go at shutdown, or dead), once
  // answered: this process claims each (one process does) and continues it from its checkpoint.
  const continueAnswered = async (staleAfterMs: number): Promise<void> => {
    if (options.approvals === undefined || state !== 'serving') return;
    const claimed = await options.controlPlane.approvals.claimResumable({
      workerId: turns.workerId,
      staleAfterMs,
      agentIds: options.agents,
    });
    for (const turn of claimed) await turns.resume(turn);
  };
  // At start-up, embedded PGlite is one process's database: every turn left running by another
  // process is a dead one's (another daemon in this process may be running turns: those are kept).
  await sweepInterrupted(options.controlPlane.kind === 'pglite' ? 0 : staleTurnMs);

  // Built once the port is bound (port 0 picks one).
  let checkRequest: (
    request: Parameters<ReturnType<typeof createRequestGuard>>[0],
  ) => RequestRefusal | undefined = () => ({
    status: 421,
    code: 'misdirected_request',
    message: 'the daemon is starting',
  });
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
  const app = createDaemonHttpApi({
    turns,
    shedder: new LoadShedder({
      maxWaitingWork: waitingWork.maxWaitingWork,
      runningTurns: () => turns.running,
      log,
    }),
    console: consoleSite,
    ...(options.toolManifest === undefined ? {} : { toolManifest: options.toolManifest }),
    controlPlane: options.controlPlane,
    checkRequest: (request) => checkRequest(request),
    startTurn: async (request, startOptions) =>
      state === 'serving' ? turns.start(request, startOptions) : undefined,
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.readToken === undefined ? {} : { readToken: options.readToken }),
    defaultAgent: options.agents[0] as string,
    agents: options.agents,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    ...(options.maxEventStreamBytes === undefined
      ? {}
      : { maxEventStreamBytes: options.maxEventStreamBytes }),
    state: reportedState,
    ...(options.commandSandbox === undefined ? {} : { commandSandbox: options.commandSandbox }),
    version: options.version ?? '0.0.0',
    log,
  });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  if (waitingWork.maxConnections !== undefined) boundConnections(server, waitingWork.maxConnections, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Node accepts one connection per turn of its event loop (libuv since 1.45, libuv/libuv#3696),
    // so a burst waits in the kernel's accept queue, which `listen` sizes at 511 by default. Past
    // it, a handshake whose last ACK finds the queue full is dropped and, once the kernel's SYN-ACK
    // retries run out (about a minute, tcp_synack_retries 5), the client's request is answered with
    // a reset. Measured with a plain Node server whose loop turns took 150 ms (2 cores, Linux 6,
    // somaxconn 4096): 2,000 connections at once got 733 resets at backlog 511 and none at 4096.
    // The kernel caps the backlog at net.core.somaxconn.
    server.listen({ port: options.port ?? 8787, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  checkRequest = createRequestGuard({
    listenHost: host,
    port,
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
  });
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostInUrl}:${port}`;
  let healthServer: Server | undefined;
  let healthUrl: string | undefined;
  const closeHealth = async () => {
    if (healthServer === undefined) return;
    const closing = healthServer;
    await new Promise<void>((resolve) => {
      closing.close(() => resolve());
      closing.closeAllConnections();
    });
  };
  if (options.healthPort !== undefined) {
    // Built once the port is bound, as the API's.
    let checkHealthRequest: ReturnType<typeof createRequestGuard> = () => ({
      status: 421,
      code: 'misdirected_request',
      message: 'the daemon is starting',
    });
    const healthApp = createHealthApp({
      checkRequest: (request) => checkHealthRequest(request),
      state: reportedState,
      runningTurns: () => turns.running,
      ...(options.commandSandbox === undefined ? {} : { commandSandbox: options.commandSandbox }),
    });
    const opened = createAdaptorServer({ fetch: healthApp.fetch }) as Server;
    try {
      await new Promise<void>((resolve, reject) => {
        opened.once('error', reject);
        opened.listen(options.healthPort, host, () => {
          opened.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      await new Promise((resolve) => server.close(resolve));
      const code = (error as NodeJS.ErrnoException).code;
      refuse(
        'serve.healthPort',
        `cannot listen on ${host}:${String(options.healthPort)} (${code ?? String(error)})`,
      );
    }
    healthServer = opened;
    const bound = (opened.address() as AddressInfo).port;
    checkHealthRequest = createRequestGuard({
      listenHost: host,
      port: bound,
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    });
    healthUrl = `http://${hostInUrl}:${bound}/healthz`;
  }

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
    await new Promise((resolve) => server.close(resolve));
    await closeHealth();
    throw error;
  }
  // Another process may open an embedded database whose lock is gone: take no more work here.
  stopWorkOnLockLost(options.controlPlane, {
    serving: () => state === 'serving',
    refuseNewWork: () => {
      state = 'lock-lost';
    },
    stopClaiming: async () => {
      await options.controlPlane.scheduler.stop();
      await Promise.all(started.map((source) => source.stop()));
    },
    log,
  });
  await continueAnswered(options.controlPlane.kind === 'pglite' ? 0 : staleTurnMs).catch((error: unknown) =>
    log(`switchyard serve: could not continue turns waiting for approval: ${String(error)}`),
  );
  const heartbeat = setInterval(() => {
    turns
      .heartbeat()
      .then(() => sweepInterrupted(staleTurnMs))
      // On embedded PGlite another worker's waiting turn is a stopped process's: continue it at once.
      .then(() => continueAnswered(options.controlPlane.kind === 'pglite' ? 0 : staleTurnMs))
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
  // The id its turn records carry: recovery log lines name a dead process's turns by it.
  log(`switchyard serve: worker ${turns.workerId}`);
  log(`switchyard serve: listening on ${url} for ${options.agents.join(', ')}`);
  if (healthUrl !== undefined) log(`switchyard serve: health checks on ${healthUrl}`);
  if (waitingWork.lowered !== undefined) log(`switchyard serve: ${waitingWork.lowered}`);

  let stopping: Promise<DaemonStopReport> | undefined;
  const stop = async (): Promise<DaemonStopReport> => {
    state = 'draining';
    const runningAtStop = turns.running;
    log(`switchyard serve: draining (${runningAtStop} running turn(s), grace ${graceMs} ms)`);
    await options.controlPlane.scheduler.stop();
    // Stopping a source waits for its running units, so it runs alongside the grace period.
    const sourcesStopped = Promise.allSettled(started.map((source) => source.stop()));
    let cancelled = 0;
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace-over'>((resolve) => {
      timer = setTimeout(() => resolve('grace-over'), graceMs);
    });
    // Turns waiting for an approval are let go, not cancelled: another process continues each once
    // it is answered. Their calls under way get the grace period too.
    const graceEnded =
      (await Promise.race([turns.quiescent().then(() => 'quiet' as const), graceOver])) === 'grace-over';
    const released = await turns.releaseWaiting();
    if (released > 0)
      log(
        `switchyard serve: let ${released} turn(s) waiting for approval go: any worker continues them once answered`,
      );
    if (
      graceEnded ||
      (await Promise.race([turns.settled().then(() => 'settled' as const), graceOver])) === 'grace-over'
    ) {
      cancelled = turns.running;
      log(`switchyard serve: grace period over, cancelling ${cancelled} turn(s)`);
      turns.cancelAll(new Error('the worker shut down before the turn finished'));
    }
    clearTimeout(timer);
    await turns.settled();
    clearInterval(heartbeat);
    clearInterval(sweepKeys);
    await sourcesStopped;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await closeHealth();
    state = 'stopped';
    const finished = Math.max(0, runningAtStop - cancelled - released);
    const letGo = released === 0 ? '' : `, ${released} let go waiting for approval`;
    log(`switchyard serve: stopped (${finished} finished, ${cancelled} cancelled${letGo})`);
    return { cancelled, finished, released };
  };

  return {
    url,
    port,
    healthUrl,
    turns,
    get state() {
      return state;
    },
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}
