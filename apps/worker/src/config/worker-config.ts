import type { BrainOptions } from '@switchyard/control-plane';
import type { ToolSearchMode } from '@switchyard/core';
import type {
  ComputerToolsLimits,
  SandboxMode,
  SandboxNetwork,
  SkillLimits,
} from '@switchyard/tools-computer';
import type { McpServerConfig } from '@switchyard/tools-mcp';
import type { WebSearchProfile } from '@switchyard/tools-web';
import type { AgentBudgets } from './agent-budgets';
import type { WorkerCategoryPackage } from './category-package';

/** The model and its endpoint, after environment overrides. */
export interface WorkerModelConfig {
  /** The model name (`model.name`, or `SWITCHYARD_MODEL`). Absent: `run` refuses, naming the variable. */
  name: string | undefined;
  /** An OpenAI-compatible base URL (`model.baseURL`, or `OPENAI_BASE_URL`). Absent: api.openai.com. */
  baseURL: string | undefined;
  /** The API key, only from `OPENAI_API_KEY` (never from the file). */
  apiKey: string | undefined;
  /** `reasoning.effort` sent with each request, when set. */
  reasoningEffort: 'minimal' | 'low' | 'medium' | 'high' | undefined;
  /** `max_output_tokens` sent with each request, when set. */
  maxOutputTokens: number | undefined;
  /** How deferred tools are offered; absent: native on api.openai.com, client elsewhere. */
  toolSearch: ToolSearchMode | undefined;
  /** Transcript chaining (default `stateless`). */
  chaining: 'stateless' | 'previous-response-id';
  /** Stream responses (default true). */
  stream: boolean;
  /** The SDK's retries on 429 and 5xx (default 3). */
  maxRetries: number;
  /** The most bytes of one response's body read (`model.maxResponseBytes`, default 32 MiB). */
  maxResponseBytes: number;
}

/** The computer category: file and command tools in the agent's home, and Skills. */
export interface WorkerComputerConfig {
  /** Absolute folder holding one home per agent: `<homeRoot>/<agent>`. */
  homeRoot: string;
  /** Extra environment variable names commands may see. */
  env: string[];
  /** Project the home's Skills into every turn's instructions (default true). */
  skills: boolean;
  /** How much of the home's Skills a turn reads and projects (`categories.computer.skillLimits`). */
  skillLimits: Partial<SkillLimits>;
  /** Limits passed to `createComputerTools`. */
  limits: ComputerToolsLimits;
  /** How `run_command` confines commands (`categories.computer.sandbox`). */
  sandbox: WorkerSandboxConfig;
}

/** `categories.computer.sandbox`, with its defaults. */
export interface WorkerSandboxConfig {
  /** `auto` (default): sandboxed when bubblewrap works, else unconfined with a warning at start-up; `required`: refuse to start without it; `off`. */
  mode: SandboxMode;
  /** `categories.computer.sandbox.network`: `none` (default) or `host`. */
  network: SandboxNetwork;
  /** More absolute paths commands must not see, besides the worker's own (resolved against the file's folder). */
  hiddenPaths: string[];
  /** Absolute host paths commands may read besides the system folders (resolved against the file's folder). */
  readOnlyPaths: string[];
}

/** `agents.<name>.computer`: one agent's command limits and sandbox, over `categories.computer`. */
export interface WorkerAgentComputerConfig {
  /** Its limits, over `categories.computer.limits` field by field. */
  limits: ComputerToolsLimits;
  /** Its sandbox's network, when it differs from `categories.computer.sandbox.network`. */
  network: SandboxNetwork | undefined;
  /** More read-only paths for its commands (resolved against the file's folder). */
  readOnlyPaths: string[];
}

/** `web_fetch` options as the configuration can give them. */
export interface WorkerFetchConfig {
  /** Whole-fetch time limit in ms. */
  timeoutMs?: number;
  /** Time limit in ms for turning a page into text or Markdown (off the event loop). */
  conversionTimeoutMs?: number;
  /** Body size limit in bytes, at most 10 MiB. */
  maxBodyBytes?: number;
  /** Redirects followed. */
  maxRedirects?: number;
  /** Characters returned per call by default. */
  defaultMaxLength?: number;
  /** The User-Agent sent. */
  userAgent?: string;
  /** Allow private and loopback addresses (metadata stays refused). */
  allowPrivateNetwork?: boolean;
  /** Exact `address:port` targets allowed although not public. */
  allowedTargets?: string[];
}

/** The web category. */
export interface WorkerWebConfig {
  /** The search provider profile (API key read from its environment variable); absent: no `web_search`. */
  search: WebSearchProfile | undefined;
  /** `web_fetch` options; `false`: no `web_fetch`. */
  fetch: WorkerFetchConfig | false;
}

/** The enabled tool categories. An absent category contributes no tool. */
export interface WorkerCategories {
  /** Computer tools (`run_command`, files) and Skills. */
  computer?: WorkerComputerConfig;
  /** `web_search` and `web_fetch`. */
  web?: WorkerWebConfig;
  /** Schedule tools over the control plane. */
  schedule?: { defaultTimeZone: string };
  /** Background job tools over the control plane. */
  jobs?: Record<string, never>;
  /** Workflow tools over the control plane. */
  workflow?: Record<string, never>;
  /**
   * The Brain over the control plane: `remember`, `recall`, `get_page`, `forget` in text turns, and
   * read-only `recall` and `get_page` in workflow task and background job turns.
   */
  brain?: BrainOptions;
  /** External MCP servers, each one namespace. */
  mcp?: { servers: Record<string, McpServerConfig> };
  /**
   * Category packages installed by configuration (every key of `categories` that is not a built-in
   * one), in the file's order: composed after the built-in categories on every text turn.
   */
  packages?: WorkerCategoryPackage[];
}

/** Turn limits. */
export interface WorkerLimits {
  /** Most model requests per turn (default 50). */
  maxIterations: number;
  /** A turn is aborted after this many ms (default 600 000). */
  turnTimeoutMs: number;
  /** Per tool call time limit in ms, when set. */
  toolTimeoutMs: number | undefined;
  /** Most calls of one response running at once (default: core's `DEFAULT_MAX_PARALLEL_CALLS`). */
  maxParallelCalls: number;
}

/** `switchyard serve`: the daemon's HTTP API and timings (its flags override these). */
export interface WorkerServeConfig {
  /** Where the HTTP API listens (default `127.0.0.1`); anything but loopback needs a token. */
  host: string;
  /** The HTTP port (default 8787; 0 picks a free one). */
  port: number;
  /** A port of its own for `GET /healthz` (`serve.healthPort`; 0 picks a free one); absent: none. */
  healthPort: number | undefined;
  /**
   * The bound of waiting work (`serve.maxWaitingWork`): API requests not yet answered plus turns
   * running; past it requests get 503 with Retry-After. Absent: 1000, or what the process's
   * open-file limit has room for.
   */
  maxWaitingWork: number | undefined;
  /** The agents whose work the daemon runs; absent: the configured `agent`. */
  agents: string[] | undefined;
  /** The bearer token, read from `tokenVariable` (never from the file). */
  token: string | undefined;
  /** The variable the token is read from (`serve.tokenEnv`, default `SWITCHYARD_SERVE_TOKEN`). */
  tokenVariable: string;
  /** A read-only bearer token (it can only `GET`), read from `readTokenVariable`. */
  readToken: string | undefined;
  /** The variable the read-only token is read from (`serve.readTokenEnv`), when set. */
  readTokenVariable: string | undefined;
  /**
   * Host names the HTTP API answers to besides its listen address and the loopback names
   * (`serve.allowedHosts`): `name` (any port) or `name:port`.
   */
  allowedHosts: string[];
  /** How long running turns may finish after SIGTERM, in ms (default 30 000). */
  graceMs: number;
  /** How often this process fires due schedules, in ms (default 1000). */
  tickMs: number;
  /** How often an idle queue consumer polls, in seconds (default 2). */
  pollSeconds: number;
  /** How often running turns are marked alive in the turn records, in ms (default 10 000). */
  heartbeatMs: number;
  /**
   * A running turn without a heartbeat for this long is marked interrupted, and the unit it ran
   * handed back to its queue, in ms (default 60 000).
   */
  staleTurnMs: number;
  /**
   * An API turn whose worker stopped is taken over by a live one and resumed from its journal
   * (`serve.resumeApiTurns`, default true); false: it is marked interrupted. A unit's turn (a schedule
   * fire, a workflow task, a job) always resumes, as its unit's next attempt.
   */
  resumeApiTurns: boolean;
  /**
   * Write each turn's journal (`serve.journal`, default true): what a turn resumes from after its
   * worker stopped, and what a turn held for approval continues from. false: no journal, except for a
   * turn from the moment a call of it is held for approval (its entries, kept in memory until then,
   * are written before the approval is requested); a turn cut off by a crash is marked interrupted and
   * a unit's next attempt starts afresh (`resumeApiTurns` has no effect).
   */
  journal: boolean;
  /**
   * The queues' safety net: a delivery still running after this long counts as lost and is delivered
   * again, in seconds (default: `limits.turnTimeoutMs` plus 60 s, so a live turn is never redelivered).
   */
  expireSeconds: number;
  /** Retries of a unit (workflow task, job, schedule fire) after its first attempt (default 2); then it fails. */
  retryLimit: number;
  /**
   * Seconds before a retry (default 5): after a failed delivery, and before each retry of a unit whose
   * worker died except the first, which starts at once.
   */
  retryDelaySeconds: number;
  /** Double the retry delay with each further retry (default true). */
  retryBackoff: boolean;
  /** Serve the operator console at `/` (`serve.console`, default true). */
  console: boolean;
  /**
   * The most bytes an HTTP event stream holds for its reader (`serve.maxEventStreamBytes`, default
   * 4 MiB): a reader further behind gets `event: overflow` and its stream ends.
   */
  maxEventStreamBytes: number;
  /**
   * The most HTTP event streams open at once (`serve.maxEventStreams`, default 128): another gets
   * `503 overloaded` until one closes. Each event is written to every stream on the event loop.
   */
  maxEventStreams: number;
  /**
   * How long a request's body may take to arrive, in ms (`serve.bodyTimeoutMs`, default 10 s): a
   * body not all there by then is answered `408 body_timeout` and its connection closed.
   */
  bodyTimeoutMs: number;
  /**
   * The most bytes of finished turns kept in memory for the HTTP API (`serve.maxRetainedTurnBytes`,
   * default 32 MiB): each turn's event log as JSON, text deltas joined, plus its output; those that
   * ended first are dropped first and read from the records.
   */
  maxRetainedTurnBytes: number;
}

/** What an approval policy does with a call: run it, hold it for an operator's answer, or refuse it. */
export type ApprovalDecision = 'allow' | 'ask' | 'deny';

/**
 * Where a turn `serve` runs came from: an API request (`POST /v1/turns`), a schedule's fire, a
 * workflow task or a background job. The last three run with nobody watching.
 */
export type ApprovalTurnSource = 'api' | 'schedule' | 'task' | 'job';

/**
 * An agent's approval policy for the turns `serve` runs unattended (API, schedule, task and job
 * turns), applied to each call from its tool's metadata and the turn's source.
 */
export interface ApprovalPolicy {
  /**
   * Calls of tools marked `isDestructive`, by the turn's source (default: `allow` in API turns, `ask`
   * in schedule, task and job turns, which nobody watches).
   */
  destructive: Readonly<Record<ApprovalTurnSource, ApprovalDecision>>;
  /** Calls of tools marked `isReadOnly` (default `allow`). */
  readOnly: ApprovalDecision;
  /** By tool key (`name`, or `namespace.name`): wins over `destructive` and `readOnly`. */
  tools: Record<string, ApprovalDecision>;
  /** How long a held call waits for an answer before it is denied as expired, in seconds (default 3600). */
  expiresInSeconds: number;
  /** Who may answer, recorded with each approval (default `["operator"]`). */
  approvers: string[];
  /**
   * A call in doubt in a resumed turn (its worker stopped after starting it, before its output was
   * recorded) of a tool neither read-only nor idempotent: `report` (default) does not run it again
   * and the model reads that its effect is unknown; `ask` holds it for an operator's answer.
   */
  inDoubt: 'report' | 'ask';
  /**
   * The configuration field that set each decision of `destructive` and `readOnly`
   * (`approvals.destructive`, `agents.ops.approvals.destructive.schedule`, ...), or `default`: named
   * in a denial's reason and in the start-up line that states each agent's policy.
   */
  origins: {
    /** Of each source's `destructive` decision. */
    destructive: Readonly<Record<ApprovalTurnSource, string>>;
    /** Of `readOnly`. */
    readOnly: string;
  };
}

/** The checked, resolved worker configuration: what `loadConfig` returns. */
export interface WorkerConfig {
  /** The file read, absolute; absent when none was found (defaults only). */
  source: string | undefined;
  /** The folder relative paths were resolved against (the file's, else the working directory). */
  baseDir: string;
  /** The model and endpoint. */
  model: WorkerModelConfig;
  /** The agent a turn runs for when none is named (default `main`). */
  agent: string;
  /** The base instructions of every text turn. */
  instructions: string;
  /** Enabled categories and their options. */
  categories: WorkerCategories;
  /** Turn limits. */
  limits: WorkerLimits;
  /** The daemon (`switchyard serve`). */
  serve: WorkerServeConfig;
  /** The approval policy of every agent without its own (`approvals`). */
  approvals: ApprovalPolicy;
  /** The spending and concurrency limits of every agent without its own (`budgets`, over the defaults). */
  budgets: AgentBudgets;
  /**
   * Per-agent settings (`agents.<name>`): an agent's own approval policy, over `approvals` field by
   * field, its own command limits and sandbox network (`computer`, absent when not set), and its
   * own budgets, over `budgets` field by field.
   */
  agents: Record<
    string,
    { approvals: ApprovalPolicy; computer?: WorkerAgentComputerConfig; budgets: AgentBudgets }
  >;
  /** The control plane's database. */
  database: {
    /** A PostgreSQL URL (`database.url`, or `DATABASE_URL`); absent: embedded PGlite. */
    url: string | undefined;
    /** The PGlite data directory, absolute (default `<baseDir>/.switchyard/db`). */
    dataDir: string;
  };
}
