import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelRequestError } from '../errors/model-request-error';
import { tooDeepPath } from '../shared/too-deep-path';
import { MAX_RESPONSE_DEPTH } from './response-shape';
import { createResponsesModel, type ModelRequest, type ResponsesModelOptions } from './responses-model';

// What a server that is not well-behaved sends, through the real SDK over HTTP: a local server
// answers each request with what the test writes (the fake Responses server only sends well-formed
// responses).

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function serve(answer: (response: ServerResponse, request: IncomingMessage) => void): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response, request));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** The JSON of `value`, with the string `"DEEP"` in it replaced by `{"nest":...}` nested `deep` levels. */
function json(value: unknown, deep = 0): string {
  const text = JSON.stringify(value);
  return deep === 0
    ? text
    : text.replace('"DEEP"', `${'{"nest":'.repeat(deep - 1)}{}${'}'.repeat(deep - 1)}`);
}

function sse(response: ServerResponse, events: unknown[], deep = 0): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events) {
    response.write(`event: ${(event as { type: string }).type}\ndata: ${json(event, deep)}\n\n`);
  }
  response.end();
}

function completed(response: Record<string, unknown>) {
  return { type: 'response.completed', sequence_number: 1, response: { id: 'resp_1', ...response } };
}

const request: ModelRequest = {
  items: [{ role: 'user', content: 'Hello' }],
  pendingFrom: 0,
  previousResponseId: undefined,
  instructions: undefined,
  tools: [],
  signal: undefined,
  onTextDelta: () => {},
};

function modelAt(baseURL: string, options: Partial<ResponsesModelOptions> = {}) {
  return createResponsesModel({
    client: new OpenAI({ baseURL, apiKey: 'test', maxRetries: 0 }),
    model: 'fake-model',
    ...options,
  });
}

/** `{"nest":{"nest":...}}`, `depth` objects deep, built without recursion (a test's own `JSON.stringify` stops short of thousands). */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < depth; level += 1) value = { nest: value };
  return value;
}

/** A response's body, written as JSON or as a stream (`completed` wraps it). */
function answerWith(body: Record<string, unknown>, deep = 0) {
  return (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(json({ id: 'resp_1', status: 'completed', ...body }, deep));
  };
}

describe.each([
  { mode: 'streaming', stream: true },
  { mode: 'not streaming', stream: false },
])('a malformed response, $mode, fails its request with a ModelRequestError naming what is wrong', ({
  stream,
}) => {
  const reply = (body: Record<string, unknown>, deep = 0) =>
    stream ? (response: ServerResponse) => sse(response, [completed(body)], deep) : answerWith(body, deep);

  it('an output item nested 20,000 levels deep, before anything copies it', async () => {
    const item = { type: 'custom_thing', id: 'x_1', payload: 'DEEP' };
    const model = modelAt(await serve(reply({ output: [item] }, 20_000)), { stream });
    const error = await model.respond(request).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ModelRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^Model response malformed: output\\[0\\]\\.payload\\.nest[a-z.]*\\.\\.\\. nests deeper than ${MAX_RESPONSE_DEPTH} levels$`,
      ),
    );
  });

  it('a message whose content is not an array, an item that is not an object, usage that is no count', async () => {
    const url = await serve(
      reply({ output: [{ type: 'message', id: 'msg_1', role: 'assistant', content: 'hi' }] }),
    );
    await expect(modelAt(url, { stream }).respond(request)).rejects.toThrow(
      /^Model response malformed: its output cannot be replayed \(.*content/,
    );
    const notObject = await serve(reply({ output: ['text'] }));
    await expect(modelAt(notObject, { stream }).respond(request)).rejects.toThrow(
      'Model response malformed: output[0] is a string, not an object',
    );
    const usage = await serve(reply({ output: [], usage: { input_tokens: -5, output_tokens: 1 } }));
    await expect(modelAt(usage, { stream }).respond(request)).rejects.toThrow(
      'Model response malformed: usage.input_tokens is -5, not a whole number of tokens',
    );
  });

  it('a well-formed response nested as deep as the limit allows is read', async () => {
    // An item is level 1: a payload of MAX - 1 nested objects is the deepest allowed.
    const item = { type: 'custom_thing', id: 'x_1', payload: nested(MAX_RESPONSE_DEPTH - 1) };
    const model = modelAt(
      await serve(reply({ output: [item], usage: { input_tokens: 3, output_tokens: 2 } })),
      {
        stream,
      },
    );
    const answer = await model.respond(request);
    expect(answer.output).toEqual([item]);
    expect(answer.usage).toMatchObject({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
  });
});

describe('maxResponseBytes', () => {
  it('ends a stream that never ends once it passes the limit, and closes the connection', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    let written = 0;
    const url = await serve((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const delta = `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', delta: 'x'.repeat(1000) })}\n\n`;
      const timer = setInterval(() => {
        for (let i = 0; i < 100; i += 1) written += delta.length;
        response.write(delta.repeat(100));
      }, 1);
      response.on('close', () => {
        clearInterval(timer);
        closed();
      });
    });
    let text = 0;
    const model = modelAt(url, { maxResponseBytes: 1024 * 1024 });
    await expect(
      model.respond({
        ...request,
        onTextDelta: (delta) => {
          text += delta.length;
        },
      }),
    ).rejects.toThrow(
      'Model response too large: its body passed 1048576 bytes (maxResponseBytes), so it was not read further',
    );
    await connectionClosed;
    expect(text).toBeGreaterThan(0);
    expect(text).toBeLessThanOrEqual(1024 * 1024);
    // The server stopped soon after: the body was cancelled, not read to its end.
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('bounds a body that is not streamed, and a body at the limit is read', async () => {
    const big = {
      output: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'y'.repeat(200_000), annotations: [] }],
        },
      ],
    };
    const url = await serve(answerWith(big));
    await expect(modelAt(url, { stream: false, maxResponseBytes: 100_000 }).respond(request)).rejects.toThrow(
      'Model response too large: its body passed 100000 bytes (maxResponseBytes)',
    );
    let text = '';
    const answer = await modelAt(url, { stream: false, maxResponseBytes: 300_000 }).respond({
      ...request,
      onTextDelta: (delta) => {
        text += delta;
      },
    });
    expect(answer.output).toHaveLength(1);
    expect(text).toHaveLength(200_000);
  });

  it('refuses a limit that is not a whole number of bytes', () => {
    for (const maxResponseBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() => modelAt('http://127.0.0.1:9/v1', { maxResponseBytes })).toThrow(
        /^createResponsesModel: maxResponseBytes must be a whole number of bytes of at least 1, got /,
      );
    }
  });
});

describe('tooDeepPath', () => {
  it('finds the first value past the limit without recursion, and nothing in a wide shallow value', () => {
    expect(tooDeepPath(nested(200_000), 'root', 3)).toBe('root.nest.nest.nest.nest');
    expect(tooDeepPath([[[[1]]]], 'a', 3)).toBeUndefined();
    expect(tooDeepPath([[[[[1]]]]], 'a', 3)).toBe('a[0][0][0][0]');
    const wide = Array.from({ length: 100_000 }, (_, index) => ({ index, tags: ['a', 'b'] }));
    expect(tooDeepPath(wide, 'w', 3)).toBeUndefined();
    expect(tooDeepPath(wide, 'w', 1)).toBe('w[0].tags');
  });
});
