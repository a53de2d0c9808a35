import type { IncomingHttpHeaders } from 'node:http';
import type { ControlPlane } from '@switchyard/control-plane';
import type { AgentBudgets } from '../../config/agent-budgets';
import type { CommandSandboxReport } from '../../config/command-sandbox';
import type { ToolManifest } from '../../tool-manifest';
import type { ConsoleSite } from '../console-files';
import type { DaemonTurnRequest, DaemonTurns } from '../daemon-turns';
import type { LoadShedder } from '../load-shedder';
import type { RequestRefusal } from '../request-guard';

/** What the HTTP API needs from the daemon. */
export interface DaemonHttpApiOptions {
  /** The daemon's turns. */
  turns: DaemonTurns;
  /**
   * Records and starts an API turn (under `options.id` when given); undefined while draining (the
   * daemon takes no new turns).
   */
  startTurn(request: DaemonTurnRequest, options?: { id?: string }): Promise<{ id: string } | undefined>;
  /**
   * The control plane: turn records, approvals, workflows, schedules and Brain pages of the agents served, and
   * the `Idempotency-Key`s of its `POST`s (`kind`: on embedded PGlite another worker's claim of a
   * key is a dead process's).
   */
  controlPlane: Pick<
    ControlPlane,
    'kind' | 'turns' | 'approvals' | 'workflows' | 'schedules' | 'idempotency' | 'budgets' | 'brain'
  >;
  /** Each agent's budgets, for `GET /v1/agents/{agent}/usage`; without them that route answers 501. */
  budgets?: (agent: string) => AgentBudgets;
  /**
   * Load shedding (`serve.maxWaitingWork`): a request it refuses is answered 503 with `Retry-After`
   * before any other check or work. Absent: every request is taken.
   */
  shedder?: LoadShedder;
  /**
   * The tool manifest an agent's next text turn would send (`buildToolManifest`), for
   * `GET /v1/tools`; without it that route answers 501.
   */
  toolManifest?: (agent: string) => ToolManifest | Promise<ToolManifest>;
  /** The bearer token every request but `/healthz` must carry, if any. */
  token?: string;
  /** A read-only token: it may only `GET` (and `HEAD`). Needs `token`. */
  readToken?: string;
  /**
   * Refuses what a browser may send on another site's behalf (`createRequestGuard`), before any
   * route or token check, `/healthz` included.
   */
  checkRequest?: (request: {
    method?: string | undefined;
    headers: IncomingHttpHeaders;
  }) => RequestRefusal | undefined;
  /** The agent of a `POST /v1/turns` or `POST /v1/workflows` without `agent`. */
  defaultAgent: string;
  /** The agents this daemon serves: the API reads and writes only theirs. */
  agents: readonly string[];
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** How long a request's body may take to arrive, in ms: past it, `408 body_timeout` (`serve.bodyTimeoutMs`). Default 10 s. */
  bodyTimeoutMs?: number;
  /** The most event streams open at once: another is answered `503 overloaded` (`serve.maxEventStreams`). Default 128. */
  maxEventStreams?: number;
  /** `serving`, `draining`, or `lock-lost` (the embedded database's lock is gone: no new turns). */
  state(): 'serving' | 'draining' | 'lock-lost';
  /** Whether the agents' commands run in the sandbox, for `/healthz`; absent: not reported. */
  commandSandbox?: () => CommandSandboxReport;
  /** Set while the model is the built-in scripted one: `/healthz`'s `scriptedModel.summary`. */
  scriptedModel?: string;
  /** How often a stream of a turn running elsewhere, and `/v1/events`, read the records, in ms. Default 1000. */
  recordPollMs?: number;
  /**
   * The most bytes an event stream holds for its reader (`serve.maxEventStreamBytes`); a reader
   * further behind gets `event: overflow` and the stream ends. Default 4 MiB.
   */
  maxEventStreamBytes?: number;
  /** The version in the OpenAPI document. */
  version: string;
  /**
   * How soon a turn let go while waiting for approval continues once answered, in ms: the interval
   * at which the daemon claims answered turns (`serve.heartbeatMs`), for `GET /v1/session`. Default
   * 10,000.
   */
  continueAnsweredWithinMs?: number;
  /** Receives one-line log messages. */
  log?: (line: string) => void;
  /**
   * The operator console answered at `/` (`readConsoleFiles`): its files, the folder that held no
   * built console, or `disabled`. Default `disabled`.
   */
  console?: ConsoleSite;
}
