// Core's loop through the real openai SDK against the fake server: the run object and its events.

import { type FakeResponsesServer, startFakeResponsesServer } from '@switchyard/fake-responses-server';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definitionError } from '../__fixtures__/definition-error';
import { createResponsesModel, defineWorkerTool, runAgentLoop } from '../index';

let server: FakeResponsesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const echo = defineWorkerTool({
  name: 'echo',
  description: 'Echo.',
  schema: z.object({ text: z.string() }),
  describeActivity: ({ text }) => `Echoing ${text}`,
  execute: ({ text }) => ({ content: text }),
});

async function start() {
  server = await startFakeResponsesServer({
    script: [{ functionCalls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { text: 'said hi' }],
  });
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
  return createResponsesModel({ client, model: 'fake-model' });
}

describe('the run', () => {
  it('resolves result() without anyone iterating', async () => {
    const run = runAgentLoop({ model: await start(), tools: [echo], input: 'Say hi' });
    await expect(run.result()).resolves.toMatchObject({
      status: 'completed',
      output: 'said hi',
      iterations: 2,
    });
  });

  it('buffers events for a consumer that starts late, and allows one consumer', async () => {
    const run = runAgentLoop({ model: await start(), tools: [echo], input: 'Say hi' });
    await run.result();
    const types: string[] = [];
    for await (const event of run) types.push(event.type);
    expect(types[0]).toBe('turn-start');
    expect(types.at(-1)).toBe('turn-end');
    expect(types.filter((type) => type === 'model-request-start')).toHaveLength(2);
    expect(() => run[Symbol.asyncIterator]()).toThrow(/only once/);
  });

  it('throws at once for bad options, naming them', async () => {
    const model = await start();
    expect(() => runAgentLoop({ model, tools: [echo], input: 'x', maxIterations: 0 })).toThrow(
      /maxIterations/,
    );
    expect(() => runAgentLoop({ model, tools: [echo], input: 'x', toolTimeoutMs: -1 })).toThrow(
      /toolTimeoutMs/,
    );
    expect(() => runAgentLoop({ model, tools: [echo, echo], input: 'x' })).toThrow(
      /duplicate tool key 'echo'/,
    );
    const search = defineWorkerTool({ ...echo, name: 'tool_search' });
    const hidden = defineWorkerTool({ ...echo, name: 'hidden', deferLoading: true });
    expect(() => runAgentLoop({ model, tools: [search, hidden], input: 'x', toolSearch: 'client' })).toThrow(
      /named 'tool_search'/,
    );
    // A reserved name is a definition mistake, as the JSDoc promises, not a bad option.
    expect(
      definitionError(() =>
        runAgentLoop({ model, tools: [search, hidden], input: 'x', toolSearch: 'client' }),
      ),
    ).toMatchObject({ toolName: 'tool_search', field: 'name' });
    // Without deferred tools there is no client search, so the name is free.
    const free = runAgentLoop({ model, tools: [search], input: 'x', toolSearch: 'client' });
    await expect(free.result()).resolves.toMatchObject({ status: 'completed' });
  });
});
