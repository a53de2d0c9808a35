import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BuiltFakeResponse, buildFakeResponse } from './fake-response-events';
import type {
  FakeHTTPError,
  FakeRequest,
  FakeRequestBody,
  FakeResponse,
  FakeResponsesServerOptions,
  FakeScriptStep,
} from './fake-script';

/** A running fake OpenAI Responses server. */
export interface FakeResponsesServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`: pass as `new OpenAI({ baseURL, apiKey: 'test' })`. */
  readonly baseURL: string;
  /** Every request received, in order (unless `record: false`). */
  readonly requests: FakeRequest[];
  /** Problems on the server side: a step function that threw, a request with no step left. */
  readonly errors: Error[];
  /** Steps not consumed yet (0 for a function script). */
  readonly remaining: number;
  /** Appends steps to the script. */
  add(...steps: FakeScriptStep[]): void;
  /** Replaces the script and forgets recorded requests and errors (to reuse one server). */
  reset(script?: FakeResponsesServerOptions['script']): void;
  /**
   * Stops the server and drops its connections.
   *
   * Contract: rejects with the first entry of `errors` if there is one, so an assertion that failed
   * inside a step function fails the test that closes the server.
   */
  close(): Promise<void>;
}

function isHTTPError(step: FakeResponse | FakeHTTPError): step is FakeHTTPError {
  return typeof (step as FakeHTTPError).httpStatus === 'number';
}

function describe(
  body: FakeRequestBody,
): Pick<FakeRequest, 'toolNames' | 'deferredToolNames' | 'functionCallOutputs'> {
  const toolNames: string[] = [];
  const deferredToolNames: string[] = [];
  const visit = (tool: Record<string, unknown>, prefix: string) => {
    if (tool.type === 'function') {
      const key = `${prefix}${String(tool.name)}`;
      toolNames.push(key);
      if (tool.defer_loading === true) deferredToolNames.push(key);
    } else if (tool.type === 'namespace' && Array.isArray(tool.tools)) {
      for (const inner of tool.tools as Record<string, unknown>[]) visit(inner, `${String(tool.name)}.`);
    } else if (tool.type === 'tool_search') {
      toolNames.push('tool_search');
    }
  };
  for (const tool of body.tools ?? []) visit(tool, '');
  const functionCallOutputs: FakeRequest['functionCallOutputs'] = [];
  if (Array.isArray(body.input)) {
    for (const item of body.input as Record<string, unknown>[]) {
      if (item?.type === 'function_call_output') {
        functionCallOutputs.push({ callId: String(item.call_id), output: item.output });
      }
    }
  }
  return { toolNames, deferredToolNames, functionCallOutputs };
}

/**
 * Waits `ms` milliseconds unless the response closes first, because the client went away (an
 * aborted request) or the server is closing; resolves whether the answer can still be written.
 * The timer is cleared on close, so a pending delay never outlives the server.
 *
 * Only the response tells whether the client is still there: the request stream is destroyed (and
 * emits `close`) as soon as its body has been read (Node's readable `autoDestroy`), so
 * `request.destroyed` and `request.on('close')` are true of every request whose body was read.
 */
function waitUnlessClosed(response: ServerResponse, ms: number): Promise<boolean> {
  if (response.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      response.off('close', onClose);
      resolve(!response.destroyed);
    }, ms);
    response.once('close', onClose);
  });
}

/** The name of a delay field that is not a finite number of milliseconds >= 0, if any. */
function badDelay(step: FakeResponse): string | undefined {
  for (const field of ['delayMs', 'eventDelayMs'] as const) {
    const value = step[field];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      return `${field} must be a finite number of milliseconds >= 0, got ${String(value)}`;
    }
  }
  return undefined;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ error: { message, type, code: null, param: null } }));
}

/**
 * Starts a fake OpenAI Responses API on 127.0.0.1 (a free port): `POST /v1/responses`, streaming
 * (SSE: `response.created`, `response.in_progress`, per item `response.output_item.added`, its
 * deltas, `response.output_item.done`, then `response.completed` / `response.incomplete` /
 * `response.failed`) and non-streaming (the response JSON). It answers each request with the next
 * script step and records the request.
 *
 * Contract: a request with no step left, or whose step function throws, gets HTTP 400 (which the
 * SDK does not retry) and is added to `errors`; `close()` then rejects with it.
 *
 * @example
 * const server = await startFakeResponsesServer({
 *   script: [
 *     { functionCalls: [{ name: 'read_note', arguments: { path: 'todo.md' } }] },
 *     (request) => {
 *       expect(request.functionCallOutputs[0]?.output).toContain('buy milk');
 *       return { text: 'You need to buy milk.' };
 *     },
 *   ],
 * });
 * const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test' });
 * // ... run the loop ...
 * await server.close();
 */
export async function startFakeResponsesServer(
  options: FakeResponsesServerOptions = {},
): Promise<FakeResponsesServer> {
  const record = options.record ?? true;
  let steps: FakeScriptStep[] = [];
  let responder:
    | ((request: FakeRequest) => FakeResponse | FakeHTTPError | Promise<FakeResponse | FakeHTTPError>)
    | undefined;
  const setScript = (script: FakeResponsesServerOptions['script']) => {
    if (typeof script === 'function') {
      responder = script;
      steps = [];
    } else {
      responder = undefined;
      steps = [...(script ?? [])];
    }
  };
  setScript(options.script);
  const requests: FakeRequest[] = [];
  const errors: Error[] = [];
  let count = 0;

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (incoming.url ?? '').split('?')[0];
    if (incoming.method !== 'POST' || (path !== '/v1/responses' && path !== '/responses')) {
      sendError(response, 404, `fake Responses server: no route for ${incoming.method} ${incoming.url}`);
      return;
    }
    let text: string;
    try {
      text = await readBody(incoming);
    } catch (error) {
      // The client went away before sending the whole body: nobody to answer, nothing wrong here.
      if (response.destroyed || !incoming.complete) return;
      throw error;
    }
    let body: FakeRequestBody;
    try {
      body = JSON.parse(text) as FakeRequestBody;
    } catch {
      sendError(response, 400, 'fake Responses server: the body is not JSON');
      return;
    }
    const request: FakeRequest = { index: count, body, headers: incoming.headers, ...describe(body) };
    count += 1;
    if (record) requests.push(request);

    let step: FakeResponse | FakeHTTPError;
    try {
      const next = responder ?? steps.shift();
      if (next === undefined) throw new Error(`no script step left for request ${request.index + 1}`);
      step = typeof next === 'function' ? await next(request) : next;
      const problem = isHTTPError(step) ? undefined : badDelay(step);
      if (problem !== undefined) throw new Error(`request ${request.index + 1}: ${problem}`);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      errors.push(failure);
      sendError(response, 400, `fake Responses server: ${failure.message}`, { 'x-should-retry': 'false' });
      return;
    }
    if (isHTTPError(step)) {
      // Instant retries unless the step says when to come back (`retry-after-ms` wins over `retry-after`).
      const saysWhen =
        step.headers?.['retry-after'] !== undefined || step.headers?.['retry-after-ms'] !== undefined;
      sendError(response, step.httpStatus, step.message ?? `scripted HTTP ${step.httpStatus}`, {
        ...(saysWhen ? {} : { 'retry-after-ms': '1' }),
        ...step.headers,
      });
      return;
    }
    if (step.delayMs !== undefined && step.delayMs > 0) {
      if (!(await waitUnlessClosed(response, step.delayMs))) return;
    }
    // A step function may have taken long enough for the client to leave.
    if (response.destroyed) return;
    await sendFakeResponse(response, step, buildFakeResponse(step, request, Buffer.byteLength(text)), body);
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      errors.push(error instanceof Error ? error : new Error(String(error)));
      if (!response.headersSent) sendError(response, 500, 'fake Responses server: internal error');
      else response.destroy();
    });
  });
  await listenAsAModelApi(server);
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    errors,
    get remaining() {
      return steps.length;
    },
    add: (...more) => {
      steps.push(...more);
    },
    reset: (script) => {
      setScript(script);
      requests.length = 0;
      errors.length = 0;
      count = 0;
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (errors.length > 0) {
        const [first] = errors;
        throw new Error(`fake Responses server: ${first?.message}`, { cause: first });
      }
    },
  };
}

/** Listens on a free loopback port with a model API's connection habits. */
async function listenAsAModelApi(server: Server): Promise<void> {
  // A model API keeps an idle connection open for a minute or more (Node's default is 5 s): at 5 s,
  // a client whose event loop is busy reuses a connection the server has just closed ("other side
  // closed"), which fails a request that never reached the server.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A model API takes thousands of connections at once; Node's default queue of 511 would reset
    // some of a benchmark's burst of turns (each opening its connection) before they are accepted.
    server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => resolve());
  });
}

/** Answers with a built response: its JSON, or its events as a stream (paced, or cut where the step asks). */
async function sendFakeResponse(
  response: ServerResponse,
  step: FakeResponse,
  built: BuiltFakeResponse,
  body: FakeRequestBody,
): Promise<void> {
  if (body.stream !== true) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...built.response, output_text: outputText(built.response) }));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const stop = step.cut === 'mid-arguments' ? (built.cutAt ?? built.events.length) : built.events.length;
  if (step.eventDelayMs !== undefined && step.eventDelayMs > 0) {
    for (let index = 0; index < stop; index += 1) {
      const event = built.events[index] as { type: string };
      response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      if (!(await waitUnlessClosed(response, step.eventDelayMs))) return;
    }
    if (step.cut === 'mid-arguments') response.socket?.destroy();
    else response.end();
    return;
  }
  let chunk = '';
  for (let index = 0; index < stop; index += 1) {
    const event = built.events[index] as { type: string };
    chunk += `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  }
  if (step.cut === 'mid-arguments') {
    response.write(chunk, () => response.socket?.destroy());
    return;
  }
  response.end(chunk);
}

function outputText(response: Record<string, unknown>): string {
  let text = '';
  for (const item of (response.output as Array<Record<string, unknown>>) ?? []) {
    if (item.type !== 'message') continue;
    for (const part of item.content as Array<{ type: string; text?: string }>) {
      if (part.type === 'output_text') text += part.text ?? '';
    }
  }
  return text;
}
