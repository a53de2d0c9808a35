import { type FakeResponsesServer, startFakeResponsesServer } from '@switchyard/fake-responses-server';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createResponsesModel, type ModelRequest } from './responses-model';

describe('createResponsesModel configuration', () => {
  it('defaults Tool Search to native on api.openai.com and to client elsewhere', () => {
    const openai = new OpenAI({ apiKey: 'test' });
    const local = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:1/v1' });
    expect(createResponsesModel({ client: openai, model: 'm' }).defaultToolSearch).toBe('native');
    expect(createResponsesModel({ client: local, model: 'm' }).defaultToolSearch).toBe('client');
  });

  it('throws naming the field for a missing client, model or a bad chaining mode', () => {
    const client = new OpenAI({ apiKey: 'test' });
    expect(() => createResponsesModel({ client: undefined as never, model: 'm' })).toThrow(/client must be/);
    expect(() => createResponsesModel({ client, model: '' })).toThrow(/model must be/);
    expect(() => createResponsesModel({ client, model: 'm', chaining: 'sticky' as never })).toThrow(
      /chaining must be/,
    );
  });
});

describe('ModelRequest.beforeRead', () => {
  let server: FakeResponsesServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function requestRecording(order: string[], release: Promise<void>): ModelRequest {
    return {
      items: [{ role: 'user', content: 'Say hello' }],
      pendingFrom: 0,
      previousResponseId: undefined,
      instructions: undefined,
      tools: [],
      signal: undefined,
      onTextDelta: (delta) => order.push(`delta ${delta}`),
      beforeRead: async () => {
        order.push('beforeRead');
        await release;
        order.push('released');
      },
    };
  }

  it.each([
    true,
    false,
  ])('is awaited once the response arrived and before it is read (stream: %s)', async (stream) => {
    server = await startFakeResponsesServer({ script: [{ text: 'hello there', textChunks: 2 }] });
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
    const model = createResponsesModel({ client, model: 'fake-model', stream });
    const order: string[] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const responding = model.respond(requestRecording(order, released));
    await vi.waitFor(() => expect(order).toEqual(['beforeRead']));
    // Held: the response is in, and nothing of it is handed on until the wait ends. A collection runs
    // meanwhile: the body is still read whole after it (undici cancels the unread body of a collected
    // `Response`; the adapter holds it until it reads).
    expect(globalThis.gc).toBeTypeOf('function');
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual(['beforeRead']);
    release();
    const response = await responding;
    expect(order[0]).toBe('beforeRead');
    expect(order[1]).toBe('released');
    expect(order.slice(2).join('').replaceAll('delta ', '')).toBe('hello there');
    expect(response.output).toHaveLength(1);
  });
});
