import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_EVENT_STREAM_BYTES,
  DEFAULT_MAX_EVENT_STREAMS,
  DEFAULT_MAX_RETAINED_TURN_BYTES,
} from '../daemon/memory-limits';
import type { ConfigEnvironment } from './config-environment';
import type { ConfigFile } from './config-schema';
import type { WorkerServeConfig } from './worker-config';
import type { WorkerConfigIssue } from './worker-config-error';

/** The bearer token's default variable. */
export const SERVE_TOKEN_VARIABLE = 'SWITCHYARD_SERVE_TOKEN';

/** Added to `limits.turnTimeoutMs` for the default queue expiry: a turn's recording and hand-over. */
const EXPIRY_MARGIN_SECONDS = 60;
/** pg-boss refuses an expiry of 24 hours or more. */
const MAX_EXPIRE_SECONDS = 86_399;

/**
 * The bearer token (from `SWITCHYARD_SERVE_TOKEN` or the variable `serve.tokenEnv` names) and the
 * read-only token (`serve.readTokenEnv`), with the problems of either pushed to `issues`: a named
 * variable not set, a token under 16 characters, a read-only token without a bearer token or equal to it.
 */
function resolveServeTokens(serve: ConfigFile['serve'], env: ConfigEnvironment, issues: WorkerConfigIssue[]) {
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
  return { token, tokenVariable, readToken, readTokenVariable };
}

/**
 * The queue expiry in seconds: `serve.expireSeconds`, which must outlast a turn, or a turn's time
 * limit plus a margin, which must stay under pg-boss's limit.
 */
function resolveExpireSeconds(
  serve: ConfigFile['serve'],
  issues: WorkerConfigIssue[],
  turnTimeoutMs: number,
): number {
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
  return expireSeconds;
}

/**
 * `serve` of the file with its defaults, its tokens read from the environment and its timings
 * checked against each other and against `limits.turnTimeoutMs`; every problem is pushed to `issues`.
 */
export function resolveServe(
  serve: ConfigFile['serve'],
  env: ConfigEnvironment,
  issues: WorkerConfigIssue[],
  turnTimeoutMs: number,
): WorkerServeConfig {
  const { token, tokenVariable, readToken, readTokenVariable } = resolveServeTokens(serve, env, issues);
  const heartbeatMs = serve?.heartbeatMs ?? 10_000;
  const staleTurnMs = serve?.staleTurnMs ?? 60_000;
  if (staleTurnMs <= heartbeatMs) {
    issues.push({
      field: 'serve.staleTurnMs',
      message: `must be longer than serve.heartbeatMs (${heartbeatMs}), or live turns would be marked interrupted`,
    });
  }
  const expireSeconds = resolveExpireSeconds(serve, issues, turnTimeoutMs);
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
    resumeApiTurns: serve?.resumeApiTurns ?? true,
    journal: serve?.journal ?? true,
    expireSeconds,
    retryLimit: serve?.retryLimit ?? 2,
    retryDelaySeconds: serve?.retryDelaySeconds ?? 5,
    retryBackoff: serve?.retryBackoff ?? true,
    console: serve?.console ?? true,
    maxEventStreamBytes: serve?.maxEventStreamBytes ?? DEFAULT_MAX_EVENT_STREAM_BYTES,
    maxEventStreams: serve?.maxEventStreams ?? DEFAULT_MAX_EVENT_STREAMS,
    bodyTimeoutMs: serve?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    maxRetainedTurnBytes: serve?.maxRetainedTurnBytes ?? DEFAULT_MAX_RETAINED_TURN_BYTES,
  };
}
