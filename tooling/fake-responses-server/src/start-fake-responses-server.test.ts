import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import OpenAI, { APIUserAbortError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeScriptStep } from './fake-script';
import { type FakeResponsesServer, startFakeResponsesServer } from './start-fake-responses-server';

let server: FakeResponsesServer | undefined;
afterEach(async () => {
  await server?.close().catch(() => {});
  server = undefined;
});

async function post(body: Record<string, unknown>) {
  return fetch(`${server?.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function parseSSE(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  const events: Array<{ event: string; data: Record<string, unknown> }> = [];
  const parser = createParser({
    onEvent: ({ event, data }) => events.push({ event: event ?? '', data: JSON.parse(data) }),
  });
  parser.feed(text);
  return events;
}

describe('fake Responses server: wire format', () => {
  it('streams a function call in the event sequence the SDK expects', async () => {
    server = await startFakeResponsesServer({
      script: [{ functionCalls: [{ name: 'read', arguments: '{"path":"a.md"}', chunks: 3, callId: 'c1' }] }],
    });
    const response = await post({ model: 'm', stream: true, input: 'hi' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSSE(await response.text());
    expect(events.map((event) => event.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.every((event) => event.data.type === event.event)).toBe(true);
    expect(events.map((event) => event.data.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const deltas = events.filter((event) => event.event.endsWith('.delta')).map((event) => event.data.delta);
    expect(deltas.join('')).toBe('{"path":"a.md"}');
    expect(events.at(-1)?.data.response).toMatchObject({
      status: 'completed',
      output: [{ type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"path":"a.md"}' }],
    });
  });

  it('answers a non-streaming request with the response JSON, incomplete with its reason', async () => {
    server = await startFakeResponsesServer({
      script: [{ text: 'partial', finishReason: 'max_output_tokens' }],
    });
    const body = (await (await post({ model: 'm', input: 'hi' })).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: 'response',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output_text: 'partial',
    });
  });

  it('records requests with their tool keys and function call outputs', async () => {
    server = await startFakeResponsesServer({ script: [{ text: 'a' }] });
    await post({
      model: 'm',
      tools: [
        { type: 'function', name: 'read' },
        { type: 'namespace', name: 'calc', tools: [{ type: 'function', name: 'add', defer_loading: true }] },
        { type: 'tool_search' },
      ],
      input: [{ type: 'function_call_output', call_id: 'c1', output: 'x' }],
    });
    expect(server.requests[0]).toMatchObject({
      index: 0,
      toolNames: ['read', 'calc.add', 'tool_search'],
      deferredToolNames: ['calc.add'],
      functionCallOutputs: [{ callId: 'c1', output: 'x' }],
    });
  });

  it('answers an HTTP error step with an OpenAI-style error body', async () => {
    server = await startFakeResponsesServer({ script: [{ httpStatus: 429, message: 'slow down' }] });
    const response = await post({ model: 'm' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after-ms')).toBe('1');
    expect(await response.json()).toMatchObject({
      error: { message: 'slow down', type: 'rate_limit_error' },
    });
  });

  it('refuses a request with no step left, and close() reports it', async () => {
    server = await startFakeResponsesServer({ script: [] });
    const response = await post({ model: 'm' });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-should-retry')).toBe('false');
    await expect(server.close()).rejects.toThrow(/no script step left for request 1/);
    server = undefined;
  });

  it('surfaces a step function that throws through close()', async () => {
    server = await startFakeResponsesServer({
      script: [
        () => {
          throw new Error('expected the tools to be sent');
        },
      ],
    });
    expect((await post({ model: 'm' })).status).toBe(400);
    expect(server.errors.map((error) => error.message)).toEqual(['expected the tools to be sent']);
    await expect(server.close()).rejects.toThrow(/expected the tools to be sent/);
    server = undefined;
  });

  it('can be reset and answered by one function', async () => {
    server = await startFakeResponsesServer({ script: [{ text: 'a' }], record: true });
    server.reset((request) => ({ text: `answer ${request.index}` }));
    expect(server.remaining).toBe(0);
    const first = (await (await post({ model: 'm' })).json()) as { output_text: string };
    const second = (await (await post({ model: 'm' })).json()) as { output_text: string };
    expect([first.output_text, second.output_text]).toEqual(['answer 0', 'answer 1']);
    expect(server.requests).toHaveLength(2);
  });

  it('answers only POST /v1/responses', async () => {
    server = await startFakeResponsesServer({ script: [] });
    expect((await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(
      404,
    );
  });
});

/** A promise and the function resolving it, to let a step function tell the test it was reached. */
function signal(): { reached: Promise<void>; reach: () => void } {
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  return { reached, reach };
}

describe('fake Responses server: delayMs', () => {
  const client = () =>
    // A timeout turns a step that never answers into a clear failure instead of a hung test.
    new OpenAI({ baseURL: server?.baseURL, apiKey: 'test', maxRetries: 0, timeout: 4_000 });

  it('answers a non-streaming request once the delay has passed', async () => {
    server = await startFakeResponsesServer({ script: [{ delayMs: 150, text: 'late but here' }] });
    const started = performance.now();
    const response = await client().responses.create({ model: 'fake', input: 'hi' });
    // A lower bound only: the answer cannot come before the timer (1 ms of timer rounding allowed).
    expect(performance.now() - started).toBeGreaterThanOrEqual(149);
    expect(response.output_text).toBe('late but here');
    expect(response.status).toBe('completed');
    await server.close();
    server = undefined;
  });

  it('answers a streaming request once the delay has passed, with the whole event sequence', async () => {
    server = await startFakeResponsesServer({
      script: [
        { delayMs: 150, functionCalls: [{ name: 'read', arguments: { path: 'a.md' }, callId: 'c1' }] },
      ],
    });
    const started = performance.now();
    const stream = await client().responses.create({ model: 'fake', input: 'hi', stream: true });
    const types: string[] = [];
    let argumentsText = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.function_call_arguments.delta') argumentsText += event.delta;
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(149);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(argumentsText).toBe('{"path":"a.md"}');
    await server.close();
    server = undefined;
  });

  it('delays each step by its own delayMs, also when a step function returns it', async () => {
    server = await startFakeResponsesServer({
      script: [{ delayMs: 20, text: 'first' }, () => ({ delayMs: 20, text: 'second' }), { text: 'third' }],
    });
    const texts: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      texts.push((await client().responses.create({ model: 'fake', input: 'hi' })).output_text);
    }
    expect(texts).toEqual(['first', 'second', 'third']);
    expect(server.remaining).toBe(0);
    await server.close();
    server = undefined;
  });

  /**
   * Starts the server with a first step that waits 30 s and `next` after it, aborts request `one`
   * during that wait, and checks the client saw its own abort. Returns the server (also kept in
   * `server`, so `afterEach` closes it if a check fails).
   */
  async function abortFirstRequestDuringDelay(options: {
    stream: boolean;
    next: FakeScriptStep;
  }): Promise<FakeResponsesServer> {
    const first = signal();
    const started = await startFakeResponsesServer({
      script: [
        () => {
          first.reach();
          return { delayMs: 30_000, text: 'never sent: the client aborted' };
        },
        options.next,
      ],
    });
    server = started;
    const controller = new AbortController();
    const aborted = client()
      .responses.create(
        { model: 'fake', input: 'one', stream: options.stream },
        { signal: controller.signal },
      )
      .then(
        () => 'answered',
        (error: unknown) => error,
      );
    await first.reached;
    controller.abort();
    expect(await aborted).toBeInstanceOf(APIUserAbortError);
    return started;
  }

  it('lets the client abort during the delay and still serves the next request', async () => {
    server = await abortFirstRequestDuringDelay({
      stream: false,
      next: { delayMs: 20, text: 'after the abort' },
    });
    const stream = await client().responses.create({ model: 'fake', input: 'two', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('after the abort');
    expect(server.requests.map((request) => request.body.input)).toEqual(['one', 'two']);
    expect(server.errors).toEqual([]);
    await server.close();
    server = undefined;
  });

  it('lets a streaming client abort during the delay without a server error', async () => {
    server = await abortFirstRequestDuringDelay({ stream: true, next: { text: 'next' } });
    expect((await client().responses.create({ model: 'fake', input: 'two' })).output_text).toBe('next');
    await server.close();
    server = undefined;
  });

  it('refuses a delay that is not a number of milliseconds >= 0, naming the field', async () => {
    server = await startFakeResponsesServer({ script: [{ delayMs: -5, text: 'x' }] });
    const response = await post({ model: 'm' });
    expect(response.status).toBe(400);
    await expect(server.close()).rejects.toThrow(
      /request 1: delayMs must be a finite number of milliseconds >= 0, got -5/,
    );
    server = undefined;
  });

  it('does not outlive close(): a process closing the server mid-delay and mid-stream exits on its own', async () => {
    const script = path.join(
      path.dirname(fileURLToPath(import.meta.url)),
      '__fixtures__/close-during-delay.ts',
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines: Array<Record<string, unknown>> = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(JSON.parse(line)));
    // Both delays are 60 s: a timer left running after close() keeps the child alive well past this
    // deadline, which fails the test with what the child printed.
    const exit = await new Promise<number | string | null>((resolve) => {
      const deadline = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running after 40 s');
      }, 40_000);
      child.once('exit', (code, killSignal) => {
        clearTimeout(deadline);
        resolve(killSignal ?? code);
      });
    });
    expect({ exit, lines, stderr }).toEqual({
      exit: 0,
      lines: [
        { stage: 'pending', firstEvent: 'response.created' },
        { stage: 'closed', errors: 0 },
        { stage: 'delayed', settled: 'rejected', error: 'APIConnectionError' },
        { stage: 'streamed', settled: 'rejected', error: 'TypeError: terminated' },
      ],
      stderr: '',
    });
  }, 50_000);
});

describe('fake Responses server: a client that goes away', () => {
  it('does not count a request body cut off by the client as a server error', async () => {
    server = await startFakeResponsesServer({ script: [{ text: 'for the next request' }] });
    const { port } = new URL(server.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /v1/responses HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
            'content-length: 1000\r\n\r\n{"model": "fake", "inp',
          () => socket.destroy(),
        );
      });
      socket.once('close', () => resolve());
      socket.once('error', reject);
    });
    const response = await post({ model: 'fake', input: 'hi' });
    expect(((await response.json()) as { output_text: string }).output_text).toBe('for the next request');
    expect(server.errors).toEqual([]);
    await server.close();
    server = undefined;
  });
});

describe('fake Responses server: connections', () => {
  it('tells clients it keeps an idle connection for 65 s, as a model API does (not Node’s 5 s)', async () => {
    server = await startFakeResponsesServer({ script: [{ text: 'kept' }] });
    const response = await post({ model: 'm', input: 'hi' });
    await response.text();
    // undici keeps a connection for the server's hint less a second: at 5 s, busy clients reused closed ones.
    expect(response.headers.get('keep-alive')).toBe('timeout=65');
  });
});
