import type { ControlPlane } from '@switchyard/control-plane';
import { AGENT_ID_PATTERN } from '@switchyard/control-plane';
import type { AgentBudgets } from '../config/agent-budgets';
import type { CommandSandboxReport } from '../config/command-sandbox';
import type { ApprovalPolicy } from '../config/worker-config';
import { WorkerConfigError } from '../config/worker-config-error';
import type { ToolManifest } from '../tool-manifest';
import type { DaemonFileBefore, DaemonTurnRunnerOptions } from './daemon-turn-types';
import { parseHostAndPort } from './request-guard';
import type { WorkSource } from './work-source';

/** What `startDaemon` takes. */
export interface DaemonOptions
  extends Omit<DaemonTurnRunnerOptions, 'approvals' | 'records' | 'resumeRequest' | 'budgets'> {
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
  approvals?: { policy(agentId: string): ApprovalPolicy; pollMs?: number; fileBefore?: DaemonFileBefore };
  /**
   * Each agent's token budgets and turns at once (`budgets`, `agents.<name>.budgets`), counted in the
   * control plane so every process on the database holds them together. Absent: turns are not limited.
   */
  budgets?: { of(agentId: string): AgentBudgets; slotPollMs?: number };
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
   * The most HTTP event streams open at once (`serve.maxEventStreams`): another is answered `503
   * overloaded` with `Retry-After` until one closes. Default 128.
   */
  maxEventStreams?: number;
  /**
   * How long a request's body may take to arrive, in ms (`serve.bodyTimeoutMs`): one not all there
   * by then is answered `408 body_timeout` and its connection closed. Default 10 s.
   */
  bodyTimeoutMs?: number;
  /**
   * Whether the agents' commands run in the sandbox, as `/healthz` reports it (`watchCommandSandbox`).
   * Default: not reported.
   */
  commandSandbox?: () => CommandSandboxReport;
  /**
   * Set while the model is the built-in scripted one (`serve --scripted-model`): what `/healthz` says
   * about it (`scriptedModel.summary`), so the console can say so on every page. Default: absent.
   */
  scriptedModel?: string;
  /** Receives one-line log messages (start, shutdown, cancelled turns). Default: none. */
  log?: (line: string) => void;
  /**
   * Runs once the API listens and work has started, before the daemon logs that it listens on `url`:
   * whatever must be in place when a reader of the log takes the daemon for ready (`serve` writes the
   * file through which the CLI in its folder reaches it). Its rejection stops the daemon again and
   * fails `startDaemon`. Default: none.
   */
  beforeReady?: (url: string) => Promise<void>;
  /** How often this process's running turns are marked alive in the turn records, in ms. Default 10 000. */
  heartbeatMs?: number;
  /**
   * A running turn whose heartbeat is older than this is marked `interrupted` (its process died), in
   * ms. Default 60 000. On embedded PGlite, which one process opens at a time, every turn left
   * running is marked at start-up.
   */
  staleTurnMs?: number;
  /**
   * Resume an API turn whose worker stopped from its journal, here (claimed once its heartbeat is
   * `staleTurnMs` old, at once on embedded PGlite); false: mark it interrupted. Default true.
   */
  resumeApiTurns?: boolean;
  /**
   * Write each turn's journal in the control plane (default true). false: no journal, except for a
   * turn from the moment a call of it is held for approval (its entries so far, kept in memory, are
   * written then, and later ones as they come), so a held turn still continues from its journal; no
   * API turn is resumed (`resumeApiTurns` is ignored): a turn cut off by a crash is marked interrupted.
   */
  journal?: boolean;
}

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
export function refuseDaemonOption(field: string, message: string): never {
  throw new WorkerConfigError({ issues: [{ field, message }] });
}

/** Refuses a byte limit that is not a whole number of at least `least`. */
function checkWholeLimit(field: string, value: number | undefined, least: number, unit = 'bytes'): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= least)) {
    refuseDaemonOption(field, `expected a whole number of ${unit} >= ${least}, got ${String(value)}`);
  }
}

/** Refuses bad daemon options before anything is opened, naming the field (`serve.port`, `serve.agents[1]`, ...). */
export function checkDaemonOptions(options: DaemonOptions): void {
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '')
    refuseDaemonOption('serve.host', 'expected a host name or address');
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token.length < 16)) {
    refuseDaemonOption('serve.token', 'expected a string of at least 16 characters');
  }
  if (options.readToken !== undefined) {
    if (typeof options.readToken !== 'string' || options.readToken.length < 16) {
      refuseDaemonOption('serve.readToken', 'expected a string of at least 16 characters');
    }
    if (options.token === undefined || options.readToken === options.token) {
      refuseDaemonOption('serve.readToken', 'needs the bearer token too, and must differ from it');
    }
  }
  checkTokenForHost(host, options.token);
  const port = options.port ?? 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    refuseDaemonOption('serve.port', `expected an integer from 0 to 65535, got ${String(port)}`);
  }
  const healthPort = options.healthPort;
  if (healthPort !== undefined) {
    if (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65_535) {
      refuseDaemonOption(
        'serve.healthPort',
        `expected an integer from 0 to 65535, got ${String(healthPort)}`,
      );
    }
    if (healthPort !== 0 && healthPort === port) {
      refuseDaemonOption('serve.healthPort', `must differ from serve.port (both ${port})`);
    }
  }
  for (const [index, entry] of (options.allowedHosts ?? []).entries()) {
    if (typeof entry !== 'string' || parseHostAndPort(entry) === undefined) {
      refuseDaemonOption(
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
    refuseDaemonOption('serve.console', `expected true or false, got ${JSON.stringify(consoleOption)}`);
  }
  if (!Array.isArray(options.agents) || options.agents.length === 0) {
    refuseDaemonOption('serve.agents', 'name at least one agent whose work this daemon runs');
  }
  for (const [index, agent] of options.agents.entries()) {
    if (typeof agent !== 'string' || !AGENT_ID_PATTERN.test(agent)) {
      refuseDaemonOption(
        `serve.agents[${index}]`,
        `${JSON.stringify(agent)} does not match ${AGENT_ID_PATTERN}`,
      );
    }
  }
  for (const field of ['graceMs', 'heartbeatMs', 'staleTurnMs'] as const) {
    const value = options[field];
    if (value !== undefined && !(Number.isFinite(value) && value >= (field === 'graceMs' ? 0 : 1))) {
      refuseDaemonOption(
        `serve.${field}`,
        `expected a number of milliseconds >= ${field === 'graceMs' ? 0 : 1}, got ${String(value)}`,
      );
    }
  }
  checkWholeLimit('serve.maxEventStreamBytes', options.maxEventStreamBytes, 16 * 1024);
  checkWholeLimit('serve.maxEventStreams', options.maxEventStreams, 1, 'streams');
  checkWholeLimit('serve.bodyTimeoutMs', options.bodyTimeoutMs, 100, 'milliseconds');
  checkWholeLimit('serve.maxRetainedTurnBytes', options.maxRetainedTurnBytes, 0);
  if ((options.staleTurnMs ?? 60_000) <= (options.heartbeatMs ?? 10_000)) {
    refuseDaemonOption(
      'serve.staleTurnMs',
      'must be longer than serve.heartbeatMs, or live turns would be marked interrupted',
    );
  }
}
