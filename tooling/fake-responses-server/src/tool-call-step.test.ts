import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeResponsesServer, startFakeResponsesServer } from './start-fake-responses-server';
import { toolCallStep } from './tool-call-step';

let server: FakeResponsesServer | undefined;
afterEach(async () => {
  await server?.close().catch(() => {});
  server = undefined;
});

describe('toolCallStep', () => {
  it('answers with exactly one function call of the tool, its arguments sent as JSON', async () => {
    server = await startFakeResponsesServer({
      script: [toolCallStep('read_note', { path: 'todo.md' }), toolCallStep('read_note', '{"path": "a')],
    });
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
    const first = await client.responses.create({ model: 'fake', input: 'hi' });
    expect(first.output).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'read_note', arguments: '{"path":"todo.md"}' }),
    ]);
    const malformed = await client.responses.create({ model: 'fake', input: 'again' });
    expect(malformed.output).toEqual([
      expect.objectContaining({ type: 'function_call', arguments: '{"path": "a' }),
    ]);
  });

  it('combines with the other keys of a response when spread', () => {
    expect({ delayMs: 300, ...toolCallStep('look_up', { word: 'wren' }) }).toEqual({
      delayMs: 300,
      functionCalls: [{ name: 'look_up', arguments: { word: 'wren' } }],
    });
  });
});
