import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_MAX_PARALLEL_CALLS } from '@switchyard/core';
import type { WebSearchProfile } from '@switchyard/tools-web';
import type { z } from 'zod';
import { DEFAULT_MAX_EVENT_STREAM_BYTES, DEFAULT_MAX_RETAINED_TURN_BYTES } from '../daemon/memory-limits';
import { type ConfigFile, configFileSchema } from './config-schema';
import type {
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalTurnSource,
  WorkerAgentComputerConfig,
  WorkerCategories,
  WorkerConfig,
  WorkerServeConfig,
} from './worker-config';
import { WorkerConfigError, type WorkerConfigIssue } from './worker-config-error';

/** The file `loadConfig` looks for in the working directory. */
export const CONFIG_FILE_NAME = 'switchyard.config.json';

/** The base instructions of a text turn when the configuration gives none. */
export const DEFAULT_INSTRUCTIONS =
  'You are a Switchyard worker agent. Use the tools you are given to do what the user asks, ' +
  'plan multi-step work with update_todos, and say plainly what you did and what you could not do.';

/** The environment a configuration reads: variable names to values. */
export type ConfigEnvironment = Readonly<Record<string, string | undefined>>;

/** Options of `loadConfig`. */
export interface LoadConfigOptions {
  /** The configuration file. Default: `SWITCHYARD_CONFIG`, else `switchyard.config.json` in `cwd` if it exists. */
  path?: string;
  /** The working directory (default `process.cwd()`). */
  cwd?: string;
  /** Where overrides and API keys are read (default `process.env`). */
  env?: ConfigEnvironment;
}

/** Options of `parseConfig`. */
export interface ParseConfigOptions {
  /** Where overrides and API keys are read (default `process.env`). */
  env?: ConfigEnvironment;
  /** Relative paths resolve against this folder (default `process.cwd()`). */
  baseDir?: string;
  /** The file the value came from, for messages. */
  source?: string;
}

function fieldOf(pathParts: readonly PropertyKey[]): string {
  let field = '';
  for (const part of pathParts) {
    if (typeof part === 'number') field += `[${part}]`;
    else field += field === '' ? String(part) : `.${String(part)}`;
  }
  return field === '' ? '(root)' : field;
}

function issuesOf(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): WorkerConfigIssue[] {
  const result: WorkerConfigIssue[] = [];
  for (const issue of issues) {
    const at = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        result.push({ field: fieldOf([...at, key]), message: 'is not a known field' });
      continue;
    }
    if (issue.code === 'invalid_key') {
      result.push({ field: fieldOf(at), message: issue.issues[0]?.message ?? issue.message });
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // A value of the type of only one branch (an object where a name or an object is allowed)
      // is reported against that branch: its fields are named.
      const sameType = issue.errors.filter(
        (branch) => !branch.some((entry) => entry.code === 'invalid_type' && entry.path.length === 0),
      );
      if (sameType.length === 1) {
        result.push(...issuesOf(sameType[0] ?? [], at));
        continue;
      }
      // Report the branch the value came closest to (an MCP server with `command` is a stdio
      // server); when no branch is closest, the union's own message says what is expected.
      const sizes = issue.errors.map((branch) => branch.length);
      const fewest = Math.min(...sizes);
      if (sizes.filter((size) => size === fewest).length === 1) {
        result.push(...issuesOf(issue.errors[sizes.indexOf(fewest)] ?? [], at));
        continue;
      }
    }
    result.push({ field: fieldOf(at), message: issue.message });
  }
  return result;
}

const DEFAULT_CATEGORIES: NonNullable<ConfigFile['categories']> = {
  computer: {},
  web: { fetch: {} },
  schedule: {},
};

function resolveSearch(
  search: NonNullable<NonNullable<ConfigFile['categories']>['web']>['search'],
  env: ConfigEnvironment,
  issues: WorkerConfigIssue[],
): WebSearchProfile | undefined {
  if (search === undefined) return undefined;
  if (search.provider === 'searxng') return search;
  const { apiKeyEnv: configured, ...profile } = search;
  const variable = configured ?? (search.provider === 'brave' ? 'BRAVE_API_KEY' : 'TAVILY_API_KEY');
  const apiKey = env[variable];
  if (apiKey === undefined || apiKey === '') {
    issues.push({
      field: 'categories.web.search.apiKeyEnv',
      message: `the ${search.provider} API key is read from the environment variable ${variable}, which is not set`,
    });
    return undefined;
  }
  return { ...profile, apiKey } as WebSearchProfile;
}

/** The bearer token's default variable. */
export const SERVE_TOKEN_VARIABLE = 'SWITCHYARD_SERVE_TOKEN';

/** Added to `limits.turnTimeoutMs` for the default queue expiry: a turn's recording and hand-over. */
const EXPIRY_MARGIN_SECONDS = 60;
/** pg-boss refuses an expiry of 24 hours or more. */
const MAX_EXPIRE_SECONDS = 86_399;

function resolveServe(
  serve: ConfigFile['serve'],
  env: ConfigEnvironment,
  issues: WorkerConfigIssue[],
  turnTimeoutMs: number,
): WorkerServeConfig {
  const tokenVariable = serve?.tokenEnv ?? SERVE_TOKEN_VARIABLE;
  const token = env[tokenVariable] === '' ? undefined : env[tokenVariable];
  if (serve?.tokenEnv !== undefined && token === undefined) {
    issues.push({
      field: 'serve.tokenEnv',
      message: `the bearer token is read from the environment variable ${tokenVariable}, which is not set`,
    });
  } else if (token !== undefined && token.length < 16) {
    issues.push({ field: tokenVariable, message: 'the bearer token must be at least 16 characters' });
  }
  const readTokenVariable = serve?.readTokenEnv;
  const readToken =
    readTokenVariable === undefined || env[readTokenVariable] === '' ? undefined : env[readTokenVariable];
  if (readTokenVariable !== undefined && readToken === undefined) {
    issues.push({
      field: 'serve.readTokenEnv',
      message: `the read-only token is read from the environment variable ${readTokenVariable}, which is not set`,
    });
  } else if (readToken !== undefined && readToken.length < 16) {
    issues.push({
      field: readTokenVariable ?? 'serve.readTokenEnv',
      message: 'the read-only token must be at least 16 characters',
    });
  } else if (readToken !== undefined && token === undefined) {
    issues.push({
      field: 'serve.readTokenEnv',
      message: `a read-only token needs the bearer token too: set ${tokenVariable}, or every request would be allowed without one`,
    });
  } else if (readToken !== undefined && readToken === token) {
    issues.push({
      field: 'serve.readTokenEnv',
      message: `the read-only token must differ from the bearer token (${tokenVariable})`,
    });
  }
  const heartbeatMs = serve?.heartbeatMs ?? 10_000;
  const staleTurnMs = serve?.staleTurnMs ?? 60_000;
  if (staleTurnMs <= heartbeatMs) {
    issues.push({
      field: 'serve.staleTurnMs',
      message: `must be longer than serve.heartbeatMs (${heartbeatMs}), or live turns would be marked interrupted`,
    });
  }
  const turnSeconds = Math.ceil(turnTimeoutMs / 1000);
  const expireSeconds = serve?.expireSeconds ?? turnSeconds + EXPIRY_MARGIN_SECONDS;
  if (serve?.expireSeconds !== undefined && expireSeconds <= turnSeconds) {
    issues.push({
      field: 'serve.expireSeconds',
      message: `must be longer than limits.turnTimeoutMs (${turnSeconds} s), or turns still running would be delivered again`,
    });
  } else if (expireSeconds > MAX_EXPIRE_SECONDS) {
    issues.push({
      field: 'limits.turnTimeoutMs',
      message: `the queue expiry (serve.expireSeconds) defaults to this plus ${EXPIRY_MARGIN_SECONDS} s, ${expireSeconds} s, over the queues' limit of ${MAX_EXPIRE_SECONDS} s: lower it to at most ${(MAX_EXPIRE_SECONDS - EXPIRY_MARGIN_SECONDS) * 1000}`,
    });
  }
  return {
    host: serve?.host ?? '127.0.0.1',
    port: serve?.port ?? 8787,
    healthPort: serve?.healthPort,
    maxWaitingWork: serve?.maxWaitingWork,
    agents: serve?.agents,
    token,
    tokenVariable,
    readToken,
    readTokenVariable,
    allowedHosts: serve?.allowedHosts ?? [],
    graceMs: serve?.graceMs ?? 30_000,
    tickMs: serve?.tickMs ?? 1_000,
    pollSeconds: serve?.pollSeconds ?? 2,
    heartbeatMs,
    staleTurnMs,
    expireSeconds,
    retryLimit: serve?.retryLimit ?? 2,
    retryDelaySeconds: serve?.retryDelaySeconds ?? 5,
    retryBackoff: serve?.retryBackoff ?? true,
    console: serve?.console ?? true,
    maxEventStreamBytes: serve?.maxEventStreamBytes ?? DEFAULT_MAX_EVENT_STREAM_BYTES,
    maxRetainedTurnBytes: serve?.maxRetainedTurnBytes ?? DEFAULT_MAX_RETAINED_TURN_BYTES,
  };
}

type ApprovalsFile = NonNullable<ConfigFile['approvals']>;

/**
 * What `serve` does with destructive calls when no policy says otherwise: an API turn has a client
 * that asked for it (and runs as it always did); a schedule fire, a workflow task or a background job
 * has nobody watching, so its destructive calls wait for an operator.
 */
const DESTRUCTIVE_DEFAULTS: Readonly<Record<ApprovalTurnSource, ApprovalDecision>> = {
  api: 'allow',
  schedule: 'ask',
  task: 'ask',
  job: 'ask',
};

/** One source's `destructive` decision in a policy section, and the field that gave it. */
function destructiveOf(
  section: ApprovalsFile | undefined,
  prefix: string,
  source: ApprovalTurnSource,
): { decision: ApprovalDecision; origin: string } | undefined {
  const destructive = section?.destructive;
  if (typeof destructive === 'string') return { decision: destructive, origin: `${prefix}.destructive` };
  const decision = destructive?.[source];
  return decision === undefined ? undefined : { decision, origin: `${prefix}.destructive.${source}` };
}

/**
 * An approval policy from the file's `approvals` and an agent's own (`agents.<name>.approvals`),
 * field by field over it; `destructive` source by source.
 */
function resolveApprovals(
  base: ApprovalsFile | undefined,
  own?: { agent: string; approvals: ApprovalsFile | undefined },
): ApprovalPolicy {
  const ownPrefix = `agents.${own?.agent}.approvals`;
  const destructive = {} as Record<ApprovalTurnSource, ApprovalDecision>;
  const destructiveOrigins = {} as Record<ApprovalTurnSource, string>;
  for (const source of Object.keys(DESTRUCTIVE_DEFAULTS) as ApprovalTurnSource[]) {
    const chosen = destructiveOf(own?.approvals, ownPrefix, source) ??
      destructiveOf(base, 'approvals', source) ?? {
        decision: DESTRUCTIVE_DEFAULTS[source],
        origin: 'default',
      };
    destructive[source] = chosen.decision;
    destructiveOrigins[source] = chosen.origin;
  }
  const ownSection = own?.approvals;
  return {
    destructive,
    readOnly: ownSection?.readOnly ?? base?.readOnly ?? 'allow',
    tools: { ...(base?.tools ?? {}), ...(ownSection?.tools ?? {}) },
    expiresInSeconds: ownSection?.expiresInSeconds ?? base?.expiresInSeconds ?? 3_600,
    approvers: ownSection?.approvers ?? base?.approvers ?? ['operator'],
    origins: {
      destructive: destructiveOrigins,
      readOnly:
        ownSection?.readOnly !== undefined
          ? `${ownPrefix}.readOnly`
          : base?.readOnly !== undefined
            ? 'approvals.readOnly'
            : 'default',
    },
  };
}

/** A read-only path that would show the whole host is refused: the sandbox shows an allowlist. */
function refuseWholeFileSystem(
  entries: readonly string[] | undefined,
  field: string,
  baseDir: string,
  issues: WorkerConfigIssue[],
): void {
  (entries ?? []).forEach((entry, index) => {
    if (path.resolve(baseDir, entry) === path.parse(baseDir).root) {
      issues.push({ field: `${field}[${index}]`, message: 'cannot show the whole file system to commands' });
    }
  });
}

/** `agents.<name>.computer` with its paths resolved against the file's folder. */
function resolveAgentComputer(
  computer: NonNullable<NonNullable<ConfigFile['agents']>[string]['computer']>,
  baseDir: string,
): WorkerAgentComputerConfig {
  return {
    limits: computer.limits ?? {},
    network: computer.sandbox?.network,
    readOnlyPaths: (computer.sandbox?.readOnlyPaths ?? []).map((entry) => path.resolve(baseDir, entry)),
  };
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a configuration value (the parsed JSON of `switchyard.config.json`), applies the
 * environment overrides (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `SWITCHYARD_MODEL`, `DATABASE_URL`,
 * and the serve token from `SWITCHYARD_SERVE_TOKEN` or the variable `serve.tokenEnv` names)
 * and the defaults, and resolves relative paths against `baseDir`.
 *
 * Contract: throws `WorkerConfigError` listing every problem with its field (`categories.web.search.provider:
 * must be one of ...`, `limits.maxIterations: ...`, `OPENAI_BASE_URL: ...`). A missing model endpoint
 * is not an error here (`tools` and `schedules` need none): `requireModelEndpoint` checks it.
 *
 * @example
 * const config = parseConfig({ categories: { web: { fetch: { timeoutMs: 10_000 } } } }, { env: process.env });
 */
export function parseConfig(raw: unknown, options: ParseConfigOptions = {}): WorkerConfig {
  const env = options.env ?? process.env;
  const baseDir = path.resolve(options.baseDir ?? process.cwd());
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new WorkerConfigError({ issues: issuesOf(parsed.error.issues), source: options.source });
  }
  const file = parsed.data;
  const issues: WorkerConfigIssue[] = [];
  const fromEnv = (name: string) => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };

  const baseURL = fromEnv('OPENAI_BASE_URL') ?? file.model?.baseURL;
  if (fromEnv('OPENAI_BASE_URL') !== undefined && !/^https?:\/\//.test(baseURL ?? '')) {
    issues.push({ field: 'OPENAI_BASE_URL', message: 'must be an http: or https: URL' });
  }
  const databaseUrl = fromEnv('DATABASE_URL') ?? file.database?.url;
  if (fromEnv('DATABASE_URL') !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl ?? '')) {
    issues.push({ field: 'DATABASE_URL', message: 'must be a postgres:// or postgresql:// URL' });
  }

  const declared = file.categories ?? DEFAULT_CATEGORIES;
  const categories: WorkerCategories = {};
  if (declared.computer !== undefined) {
    const computer = declared.computer;
    const sandbox = typeof computer.sandbox === 'string' ? { mode: computer.sandbox } : computer.sandbox;
    (sandbox?.hiddenPaths ?? []).forEach((entry, index) => {
      if (path.resolve(baseDir, entry) === path.parse(baseDir).root) {
        issues.push({
          field: `categories.computer.sandbox.hiddenPaths[${index}]`,
          message: 'cannot hide the whole file system',
        });
      }
    });
    refuseWholeFileSystem(
      sandbox?.readOnlyPaths,
      'categories.computer.sandbox.readOnlyPaths',
      baseDir,
      issues,
    );
    categories.computer = {
      homeRoot: path.resolve(baseDir, computer.homeRoot ?? '.switchyard/homes'),
      env: computer.env ?? [],
      skills: computer.skills ?? true,
      skillLimits: computer.skillLimits ?? {},
      limits: computer.limits ?? {},
      sandbox: {
        mode: sandbox?.mode ?? 'auto',
        network: sandbox?.network ?? 'none',
        hiddenPaths: (sandbox?.hiddenPaths ?? []).map((entry) => path.resolve(baseDir, entry)),
        readOnlyPaths: (sandbox?.readOnlyPaths ?? []).map((entry) => path.resolve(baseDir, entry)),
      },
    };
  }
  if (declared.web !== undefined) {
    categories.web = {
      search: resolveSearch(declared.web.search, env, issues),
      fetch: declared.web.fetch ?? {},
    };
  }
  if (declared.schedule !== undefined) {
    const zone = declared.schedule.defaultTimeZone ?? 'UTC';
    if (!isTimeZone(zone)) {
      issues.push({
        field: 'categories.schedule.defaultTimeZone',
        message: `${JSON.stringify(zone)} is not an IANA time zone`,
      });
    }
    categories.schedule = { defaultTimeZone: zone };
  }
  if (declared.jobs !== undefined) categories.jobs = {};
  if (declared.workflow !== undefined) categories.workflow = {};
  if (declared.brain !== undefined) categories.brain = { ...declared.brain };
  if (declared.mcp !== undefined) {
    const servers: NonNullable<WorkerCategories['mcp']>['servers'] = {};
    for (const [name, server] of Object.entries(declared.mcp.servers)) {
      servers[name] =
        'command' in server && server.cwd !== undefined
          ? { ...server, cwd: path.resolve(baseDir, server.cwd) }
          : server;
    }
    categories.mcp = { servers };
  }
  for (const [name, agent] of Object.entries(file.agents ?? {})) {
    refuseWholeFileSystem(
      agent.computer?.sandbox?.readOnlyPaths,
      `agents.${name}.computer.sandbox.readOnlyPaths`,
      baseDir,
      issues,
    );
  }
  const turnTimeoutMs = file.limits?.turnTimeoutMs ?? 600_000;
  const serve = resolveServe(file.serve, env, issues, turnTimeoutMs);
  if (issues.length > 0) throw new WorkerConfigError({ issues, source: options.source });

  return {
    source: options.source,
    baseDir,
    model: {
      name: fromEnv('SWITCHYARD_MODEL') ?? file.model?.name,
      baseURL,
      apiKey: fromEnv('OPENAI_API_KEY'),
      reasoningEffort: file.model?.reasoningEffort,
      maxOutputTokens: file.model?.maxOutputTokens,
      toolSearch: file.model?.toolSearch,
      chaining: file.model?.chaining ?? 'stateless',
      stream: file.model?.stream ?? true,
      maxRetries: file.model?.maxRetries ?? 3,
    },
    agent: file.agent ?? 'main',
    instructions: file.instructions ?? DEFAULT_INSTRUCTIONS,
    categories,
    limits: {
      maxIterations: file.limits?.maxIterations ?? 50,
      turnTimeoutMs,
      toolTimeoutMs: file.limits?.toolTimeoutMs,
      maxParallelCalls: file.limits?.maxParallelCalls ?? DEFAULT_MAX_PARALLEL_CALLS,
    },
    serve,
    approvals: resolveApprovals(file.approvals),
    agents: Object.fromEntries(
      Object.entries(file.agents ?? {}).map(([name, agent]) => [
        name,
        {
          approvals: resolveApprovals(file.approvals, { agent: name, approvals: agent.approvals }),
          ...(agent.computer === undefined
            ? {}
            : { computer: resolveAgentComputer(agent.computer, baseDir) }),
        },
      ]),
    ),
    database: {
      url: databaseUrl,
      dataDir: path.resolve(baseDir, file.database?.dataDir ?? '.switchyard/db'),
    },
  };
}

/**
 * Finds, reads and checks the worker's configuration: `options.path`, else the file named by
 * `SWITCHYARD_CONFIG`, else `switchyard.config.json` in the working directory, else the defaults
 * (computer, web fetch and schedule tools; see the README).
 *
 * Contract: throws `WorkerConfigError` naming the field for every problem, including a named file
 * that does not exist or is not JSON (field `(file)`). See `parseConfig`.
 *
 * @example
 * const config = await loadConfig({ path: 'switchyard.config.json' });
 * const tools = buildTextTurnTools({ config, agent, services, todos: { items: [] } });
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<WorkerConfig> {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const named = options.path ?? (env.SWITCHYARD_CONFIG === '' ? undefined : env.SWITCHYARD_CONFIG);
  const candidate = path.resolve(cwd, named ?? CONFIG_FILE_NAME);
  if (named === undefined && !existsSync(candidate)) return parseConfig({}, { env, baseDir: cwd });
  let text: string;
  try {
    text = await readFile(candidate, 'utf8');
  } catch (error) {
    throw new WorkerConfigError({
      issues: [{ field: '(file)', message: `cannot be read: ${(error as Error).message}` }],
      source: candidate,
      cause: error,
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new WorkerConfigError({
      issues: [{ field: '(file)', message: `is not valid JSON: ${(error as Error).message}` }],
      source: candidate,
      cause: error,
    });
  }
  return parseConfig(raw, { env, baseDir: path.dirname(candidate), source: candidate });
}
