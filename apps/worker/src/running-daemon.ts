import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkerConfig } from './config/worker-config';

/**
 * The file `switchyard serve` writes in its embedded database's data directory (beside the lock's
 * `switchyard.lock`) once its API listens, and removes when it stops: how the CLI in the same folder
 * finds the daemon that holds the database.
 */
export const RUNNING_DAEMON_FILE = 'switchyard-serve.json';

// The file holds a pid and a URL: anything longer is not one.
const MAX_FILE_BYTES = 4096;
// A daemon on this machine answers in milliseconds; a minute covers a busy one.
const REQUEST_TIMEOUT_MS = 60_000;
// The largest answer read from the daemon: a page of 50 approvals with 64 KiB arguments each fits.
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** A running `switchyard serve` that holds the embedded database of the configuration. */
export interface RunningDaemon {
  /** Its HTTP API (`http://127.0.0.1:8787`). */
  url: string;
  /** Its process. */
  pid: number;
  /** The bearer token its API takes (`serve.token`: `SWITCHYARD_SERVE_TOKEN` or `serve.tokenEnv`), if set. */
  token: string | undefined;
}

/** Writes `RUNNING_DAEMON_FILE` for this process; returns how to remove it. */
export async function recordRunningDaemon(dataDir: string, url: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, RUNNING_DAEMON_FILE);
  await writeFile(file, `${JSON.stringify({ pid: process.pid, url })}\n`, { mode: 0o600 });
  return () => rm(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The `switchyard serve` holding the configuration's embedded database, when one runs: its
 * `RUNNING_DAEMON_FILE` names a live process and a loopback or configured URL. Undefined on PostgreSQL
 * (every command opens the database itself there) and when no daemon runs.
 */
export async function findRunningDaemon(config: WorkerConfig): Promise<RunningDaemon | undefined> {
  if (config.database.url !== undefined) return undefined;
  let text: string;
  try {
    text = await readFile(path.join(config.database.dataDir, RUNNING_DAEMON_FILE), 'utf8');
  } catch {
    return undefined;
  }
  if (text.length > MAX_FILE_BYTES) return undefined;
  try {
    const value = JSON.parse(text) as { pid?: unknown; url?: unknown };
    if (!Number.isInteger(value.pid) || typeof value.url !== 'string' || !/^https?:\/\//.test(value.url)) {
      return undefined;
    }
    const pid = value.pid as number;
    // A daemon killed by SIGKILL leaves its file behind.
    if (!isAlive(pid)) return undefined;
    return { url: value.url.replace(/\/$/, ''), pid, token: config.serve.token };
  } catch {
    return undefined;
  }
}

/** An answer of the daemon's API: its status and its JSON body (`{}` when empty). */
export interface DaemonAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Reads a response body up to `MAX_ANSWER_BYTES`, refusing a longer one. */
async function boundedText(response: Response): Promise<string> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    if (bytes > MAX_ANSWER_BYTES)
      throw new Error(`the daemon's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Sends one request to the daemon's API with its token, within a time limit this call holds until
 * it ends.
 *
 * Contract: resolves with any HTTP status (the caller reads the API's errors); rejects when the
 * daemon cannot be reached or does not answer in time, naming its URL.
 */
export async function requestDaemon(
  daemon: RunningDaemon,
  method: 'GET' | 'POST',
  route: string,
  body?: unknown,
): Promise<DaemonAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
  try {
    const response = await fetch(`${daemon.url}${route}`, {
      method,
      signal: controller.signal,
      headers: {
        ...(daemon.token === undefined ? {} : { authorization: `Bearer ${daemon.token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await boundedText(response);
    return {
      status: response.status,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
  } catch (error) {
    throw new Error(
      `the switchyard serve (pid ${daemon.pid}) holding this folder's database did not answer at ${daemon.url}: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

/** The API's error message of an answer (`{ error: { message } }`), or its status. */
export function daemonError(answer: DaemonAnswer): string {
  const error = answer.body.error as { message?: unknown } | undefined;
  return typeof error?.message === 'string' ? error.message : `HTTP ${answer.status}`;
}

/**
 * `GET route` of the daemon's API: its JSON body, undefined on 404, and an error naming `what` and
 * the API's message on any other status.
 */
export async function readDaemon(
  daemon: RunningDaemon,
  route: string,
  what: string,
): Promise<Record<string, unknown> | undefined> {
  const answer = await requestDaemon(daemon, 'GET', route);
  if (answer.status === 404) return undefined;
  if (answer.status !== 200) {
    throw new Error(`reading ${what} through the daemon's API (${daemon.url}): ${daemonError(answer)}`);
  }
  return answer.body;
}

/** The API's record (`agent`) as the control plane's (`agentId`). */
export function recordOfView<T>(view: Record<string, unknown>): T {
  const { agent, ...rest } = view;
  return { ...rest, agentId: agent } as T;
}
