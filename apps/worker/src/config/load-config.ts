import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_MAX_PARALLEL_CALLS, DEFAULT_MAX_RESPONSE_BYTES } from '@switchyard/core';
import { resolveBudgets } from './agent-budgets';
import { type ConfigEnvironment, variableOf } from './config-environment';
import { configIssuesOf } from './config-issues-of';
import { type ConfigFile, configFileSchema } from './config-schema';
import { resolveAgents } from './resolve-agents';
import { resolveApprovals } from './resolve-approvals';
import { resolveCategories } from './resolve-categories';
import { resolveServe } from './resolve-serve';
import type { WorkerConfig } from './worker-config';
import { WorkerConfigError, type WorkerConfigIssue } from './worker-config-error';

/** The file `loadConfig` looks for in the working directory. */
export const CONFIG_FILE_NAME = 'switchyard.config.json';

/** The base instructions of a text turn when the configuration gives none. */
export const DEFAULT_INSTRUCTIONS =
  'You are a Switchyard worker agent. Use the tools you are given to do what the user asks, ' +
  'plan multi-step work with update_todos, and say plainly what you did and what you could not do.';

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

/**
 * The model's base URL and the database URL, the environment's (`OPENAI_BASE_URL`, `DATABASE_URL`)
 * over the file's; an environment value that is not such a URL is pushed to `issues`.
 */
function resolveEndpoints(
  file: ConfigFile,
  env: ConfigEnvironment,
  issues: WorkerConfigIssue[],
): { baseURL: string | undefined; databaseUrl: string | undefined } {
  const baseURL = variableOf(env, 'OPENAI_BASE_URL') ?? file.model?.baseURL;
  if (variableOf(env, 'OPENAI_BASE_URL') !== undefined && !/^https?:\/\//.test(baseURL ?? '')) {
    issues.push({ field: 'OPENAI_BASE_URL', message: 'must be an http: or https: URL' });
  }
  const databaseUrl = variableOf(env, 'DATABASE_URL') ?? file.database?.url;
  if (variableOf(env, 'DATABASE_URL') !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl ?? '')) {
    issues.push({ field: 'DATABASE_URL', message: 'must be a postgres:// or postgresql:// URL' });
  }
  return { baseURL, databaseUrl };
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
    throw new WorkerConfigError({ issues: configIssuesOf(parsed.error.issues), source: options.source });
  }
  const file = parsed.data;
  const issues: WorkerConfigIssue[] = [];
  const endpoints = resolveEndpoints(file, env, issues);
  const categories = resolveCategories(file.categories, { env, baseDir, issues });
  const agents = resolveAgents(file, baseDir, issues);
  const turnTimeoutMs = file.limits?.turnTimeoutMs ?? 600_000;
  const serve = resolveServe(file.serve, env, issues, turnTimeoutMs);
  if (issues.length > 0) throw new WorkerConfigError({ issues, source: options.source });

  return {
    source: options.source,
    baseDir,
    model: {
      name: variableOf(env, 'SWITCHYARD_MODEL') ?? file.model?.name,
      baseURL: endpoints.baseURL,
      apiKey: variableOf(env, 'OPENAI_API_KEY'),
      reasoningEffort: file.model?.reasoningEffort,
      maxOutputTokens: file.model?.maxOutputTokens,
      toolSearch: file.model?.toolSearch,
      chaining: file.model?.chaining ?? 'stateless',
      stream: file.model?.stream ?? true,
      maxRetries: file.model?.maxRetries ?? 3,
      maxResponseBytes: file.model?.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
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
    budgets: resolveBudgets(file.budgets),
    agents,
    database: {
      url: endpoints.databaseUrl,
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
