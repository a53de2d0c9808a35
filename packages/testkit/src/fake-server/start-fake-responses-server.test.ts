import { afterEach, describe, expect, it } from 'vitest';
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
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      return {
        event: eventLine?.slice('event: '.length) ?? '',
        data: JSON.parse(dataLine?.slice('data: '.length) ?? ''),
      };
    });
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
