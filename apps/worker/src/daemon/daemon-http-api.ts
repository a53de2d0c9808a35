import type { IncomingMessage, ServerResponse } from 'node:http';
import { AGENT_ID_PATTERN, ControlPlaneInputError } from '@switchyard/control-plane';
import { checkBearerToken } from './check-bearer-token';
import type { DaemonTurnEvent, DaemonTurnRequest, DaemonTurns } from './daemon-turns';
import type { RequestRefusal } from './request-guard';

/** What the HTTP API needs from the daemon. */
export interface DaemonHttpApiOptions {
  /** The daemon's turns. */
  turns: DaemonTurns;
  /** Records and starts an API turn; undefined while draining (the daemon takes no new turns). */
  startTurn(request: DaemonTurnRequest): Promise<{ id: string } | undefined>;
  /** The bearer token every request but `/healthz` must carry, if any. */
  token?: string;
  /**
   * Refuses what a browser may send on another site's behalf (`createRequestGuard`), before any
   * route or token check, `/healthz` included.
   */
  checkRequest?: (request: IncomingMessage) => RequestRefusal | undefined;
  /** The agent of a `POST /v1/turns` without `agent`. */
  defaultAgent: string;
  /** The agents this daemon serves (any valid id when absent). */
  agents?: readonly string[];
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** `serving` or `draining`. */
  state(): 'serving' | 'draining';
  /** How often a stream of a turn running in another process checks whether it ended, in ms. Default 1000. */
  recordPollMs?: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(text);
}

async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new HttpError(413, 'body_too_large', `the request body is over ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes)
      throw new HttpError(413, 'body_too_large', `the request body is over ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
  }
}

function parseTurnBody(body: unknown, options: DaemonHttpApiOptions): { prompt: string; agent: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'invalid_body', 'the body must be a JSON object with "prompt"', ['prompt']);
  }
  const record = body as Record<string, unknown>;
  const problems: string[] = [];
  const fields: string[] = [];
  const prompt = record.prompt;
  if (typeof prompt !== 'string' || prompt.trim() === '') {
    fields.push('prompt');
    problems.push('prompt: expected a non-empty string');
  }
  const agent = record.agent ?? options.defaultAgent;
  if (typeof agent !== 'string' || !AGENT_ID_PATTERN.test(agent)) {
    fields.push('agent');
    problems.push(`agent: expected an agent id matching ${AGENT_ID_PATTERN}`);
  } else if (options.agents !== undefined && !options.agents.includes(agent)) {
    fields.push('agent');
    problems.push(`agent: this daemon serves ${options.agents.map((name) => `'${name}'`).join(', ')}`);
  }
  const unknown = Object.keys(record).filter((key) => key !== 'prompt' && key !== 'agent');
  for (const key of unknown) {
    fields.push(key);
    problems.push(`${key}: unknown field (expected "prompt" and optionally "agent")`);
  }
  if (problems.length > 0) throw new HttpError(400, 'invalid_body', problems.join('; '), fields);
  return { prompt: prompt as string, agent: agent as string };
}

const TURN_PATH = /^\/v1\/turns\/([A-Za-z0-9_-]{1,80})(\/events)?$/;

function allow(method: string | undefined, allowed: string[]): void {
  if (!allowed.includes(method ?? '')) {
    throw new HttpError(405, 'method_not_allowed', `use ${allowed.join(' or ')}`, undefined, {
      allow: allowed.join(', '),
    });
  }
}

function openEventStream(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  response.write(': switchyard turn events\n\n');
}

function writeEvent(response: ServerResponse, sequence: number, event: DaemonTurnEvent): void {
  response.write(`id: ${sequence}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

/** A turn this process is running or ran recently: replay from memory, then live. */
function streamLiveEvents(
  request: IncomingMessage,
  response: ServerResponse,
  turns: DaemonTurns,
  id: string,
): void {
  openEventStream(response);
  let unsubscribe: (() => void) | undefined;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    unsubscribe?.();
    response.end();
  };
  let sequence = 0;
  unsubscribe = turns.subscribe(id, (event) => {
    if (ended) return;
    sequence += 1;
    writeEvent(response, sequence, event);
    if (event.type === 'turn-end') queueMicrotask(end);
  });
  request.once('close', end);
  // A turn that had already ended replayed its turn-end above; end() ran in a microtask.
}

/**
 * A turn from the records (an earlier run of the daemon, or another process on the same database):
 * waits while it runs elsewhere (a comment line per check keeps the connection open), then sends its
 * recorded events. An interrupted turn, which has no recorded log, ends with a `turn-end` saying so.
 */
async function streamRecordedEvents(
  request: IncomingMessage,
  response: ServerResponse,
  turns: DaemonTurns,
  id: string,
  pollMs: number,
): Promise<void> {
  openEventStream(response);
  let closed = false;
  request.once('close', () => {
    closed = true;
  });
  let snapshot = await turns.find(id);
  while (!closed && snapshot?.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    response.write(': running elsewhere\n\n');
    snapshot = await turns.find(id);
  }
  if (closed || snapshot === undefined) {
    response.end();
    return;
  }
  const events = (await turns.recordedEvents(id)) ?? [];
  // An interrupted turn has no recorded log: its stream still ends with a turn-end.
  if (events.at(-1)?.type !== 'turn-end' && snapshot.status !== 'running') {
    events.push({
      type: 'turn-end',
      status: snapshot.status,
      iterations: snapshot.iterations,
      usage: snapshot.usage,
      ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
    });
  }
  events.forEach((event, index) => {
    writeEvent(response, index + 1, event);
  });
  response.end();
}

/**
 * The daemon's HTTP request handler: `POST /v1/turns`, `GET /v1/turns/:id`,
 * `GET /v1/turns/:id/events` (server-sent events: replay, then live, ending after `turn-end`) and
 * `GET /healthz`. Turns are looked up in memory, then in the turn records, so a turn of an earlier run
 * of the daemon, or of another process on the same database, answers too (its recorded event log).
 *
 * Contract: answers every error as JSON `{ error: { code, message, fields? } }`: 421 for a foreign
 * `Host`, 403 for a cross-site browser request, 415 for a body that is not JSON (`checkRequest`), 400
 * for a bad body (naming the fields), 401 without the configured bearer token, 404, 405 (with
 * `Allow`), 413 for a body over `maxBodyBytes`, 503 for a new turn while draining or when it cannot
 * be recorded.
 */
export function createDaemonHttpApi(
  options: DaemonHttpApiOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const refusal = options.checkRequest?.(request);
    if (refusal !== undefined) throw new HttpError(refusal.status, refusal.code, refusal.message);
    if (path === '/healthz') {
      allow(request.method, ['GET', 'HEAD']);
      sendJson(response, options.state() === 'serving' ? 200 : 503, {
        status: options.state(),
        runningTurns: options.turns.running,
      });
      return;
    }
    if (options.token !== undefined && !checkBearerToken(request.headers.authorization, options.token)) {
      throw new HttpError(401, 'unauthorized', 'a valid bearer token is required', undefined, {
        'www-authenticate': 'Bearer realm="switchyard"',
      });
    }
    if (path === '/v1/turns') {
      allow(request.method, ['POST']);
      const body = parseTurnBody(await readJsonBody(request, options.maxBodyBytes), options);
      let started: { id: string } | undefined;
      try {
        started = await options.startTurn({ agentId: body.agent, prompt: body.prompt, source: 'api' });
      } catch (error) {
        // A prompt the records refuse (a NUL character, a lone surrogate) is the client's to fix.
        if (ControlPlaneInputError.isInstance(error)) {
          throw new HttpError(400, 'invalid_body', error.message, [error.field]);
        }
        throw new HttpError(
          503,
          'unavailable',
          'the turn could not be recorded, so it was not started; retry',
        );
      }
      if (started === undefined) {
        throw new HttpError(503, 'draining', 'the daemon is shutting down and takes no new turns');
      }
      sendJson(response, 202, options.turns.get(started.id), { location: `/v1/turns/${started.id}` });
      return;
    }
    const match = TURN_PATH.exec(path);
    if (match !== null) {
      allow(request.method, ['GET']);
      const id = match[1] as string;
      const snapshot = await options.turns.find(id);
      if (snapshot === undefined) throw new HttpError(404, 'not_found', `no turn '${id}'`);
      if (match[2] === undefined) sendJson(response, 200, snapshot);
      else if (options.turns.has(id)) streamLiveEvents(request, response, options.turns, id);
      else await streamRecordedEvents(request, response, options.turns, id, options.recordPollMs ?? 1000);
      return;
    }
    throw new HttpError(404, 'not_found', `no route for ${path}`);
  }

  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const failure =
        error instanceof HttpError ? error : new HttpError(500, 'internal_error', 'internal error');
      sendJson(
        response,
        failure.status,
        {
          error: {
            code: failure.code,
            message: failure.message,
            ...(failure.fields === undefined ? {} : { fields: failure.fields }),
          },
        },
        {
          ...failure.headers,
          ...(failure.status === 413 || failure.status === 415 ? { connection: 'close' } : {}),
        },
      );
      // A refused upload is not read to the end: drained, and the connection closed.
      request.resume();
    });
  };
}
