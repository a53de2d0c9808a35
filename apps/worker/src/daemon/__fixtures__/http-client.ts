import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';

/** A JSON answer: status, headers and parsed body. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A request to the daemon: a JSON `body` (or a `rawBody` sent as it is) makes it a POST by default. */
export interface DaemonRequest {
  method?: string;
  body?: unknown;
  rawBody?: string;
  /** More headers; `content-type` defaults to JSON when there is a body. */
  headers?: Record<string, string>;
}

/** Sends a request to the daemon and reads its answer as text. */
export async function sendRequest(
  url: string,
  init: DaemonRequest,
): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined || init.rawBody !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined && init.rawBody === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.rawBody !== undefined
      ? { body: init.rawBody }
      : init.body !== undefined
        ? { body: JSON.stringify(init.body) }
        : {}),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * Sends `method rawPath` to the server at `base` with node:http, exactly as written: the path is not
 * normalised (`..` and `%2e` stay as they are) and every header is the test's, `Host` included
 * (fetch can send neither). `Host` defaults to `base`'s; a `body` makes it a POST by default.
 */
export function rawRequest(
  base: string,
  rawPath: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const { hostname, port, host } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: hostname,
        port,
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        path: rawPath,
        headers: { host, ...init.headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
        );
      },
    );
    request.on('error', reject);
    request.end(init.body);
  });
}

/** The body of a raw HTTP/1.1 answer with chunked transfer coding, and whether its last chunk came. */
export function dechunk(raw: Buffer): { body: string; complete: boolean } {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd === -1) return { body: Buffer.concat(parts).toString('utf8'), complete: false };
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return { body: Buffer.concat(parts).toString('utf8'), complete: true };
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Sends a request to the daemon (with `token` as its bearer token) and parses its JSON answer. */
export async function requestJson(
  url: string,
  init: Omit<DaemonRequest, 'headers'> & { token?: string } = {},
): Promise<JsonAnswer> {
  const { token, ...request } = init;
  const { status, headers, text } = await sendRequest(url, {
    ...request,
    ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  });
  return { status, headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** One parsed server-sent event. */
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * The messages of a server-sent-event text read whole (a body already read, or what a reader had read
 * when it stopped), parsed by `eventsource-parser` as every event stream is read here; an event cut
 * off at the end of the text is left out, as the standard says.
 */
export function serverSentEventsOf(text: string): EventSourceMessage[] {
  const messages: EventSourceMessage[] = [];
  createParser({ onEvent: (message) => messages.push(message) }).feed(text);
  return messages;
}

/** Reads a server-sent event stream to its end: its named events, each with its data parsed. */
export async function readEventStream(url: string, token?: string): Promise<SseEvent[]> {
  const response = await fetch(
    url,
    token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  );
  if (response.status !== 200 || response.body === null) {
    throw new Error(`events: HTTP ${response.status}: ${await response.text()}`);
  }
  const events: SseEvent[] = [];
  const messages = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  for await (const { event, data } of messages) {
    if (event !== undefined) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
  }
  return events;
}

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls `GET /v1/turns/{id}` until the turn is no longer `running`; returns that answer. */
export async function waitForTurnEnd(baseUrl: string, id: string): Promise<JsonAnswer> {
  return waitFor(`turn ${id} to end`, async () => {
    const answer = await requestJson(`${baseUrl}/v1/turns/${id}`);
    return answer.body.status === 'running' ? undefined : answer;
  });
}
