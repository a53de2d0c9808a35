import {
  type AgentEvent,
  type AgentToolResult,
  createResponsesModel,
  defineWorkerTool,
  runAgentLoop,
} from '@switchyard/core';
import { startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import { z } from 'zod';
import { heading, median, ms, report } from '../measure';

const CALLS = 8;
const WAIT_MS = 100;

/** One batch of 8 parallel tools that each wait 100 ms: the batch's wall time against 100 ms. */
export async function parallelBatch(): Promise<void> {
  const calls = Array.from({ length: CALLS }, (_, index) => ({ name: 'wait', arguments: { id: index } }));
  const server = await startFakeResponsesServer({
    record: false,
    script: (request) =>
      Array.isArray(request.body.input) && request.body.input.length > 1
        ? { text: 'done' }
        : { functionCalls: calls },
  });
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'bench', maxRetries: 0 });
  const model = createResponsesModel({ client, model: 'bench-model' });
  const tool = (executionMode: 'parallel' | 'sequential') =>
    defineWorkerTool({
      name: 'wait',
      description: `Waits ${WAIT_MS} ms.`,
      schema: z.object({ id: z.number() }),
      executionMode,
      describeActivity: ({ id }) => `Waiting ${id}`,
      execute: () =>
        new Promise<AgentToolResult>((resolve) => setTimeout(() => resolve({ content: 'waited' }), WAIT_MS)),
    });
  /** Milliseconds from the first call's start to the last call's end. */
  const batchTime = async (executionMode: 'parallel' | 'sequential') => {
    const run = runAgentLoop({ model, tools: [tool(executionMode)], input: 'Go.' });
    let start = 0;
    let end = 0;
    for await (const event of run as AsyncIterable<AgentEvent>) {
      if (event.type === 'tool-call-start' && start === 0) start = performance.now();
      if (event.type === 'tool-call-end') end = performance.now();
    }
    return end - start;
  };
  try {
    await batchTime('parallel');
    const parallel: number[] = [];
    for (let round = 0; round < 10; round += 1) parallel.push(await batchTime('parallel'));
    const sequential = await batchTime('sequential');
    heading(`Parallel batch: ${CALLS} tools that each wait ${WAIT_MS} ms`);
    report(
      'parallel batch wall time (median of 10)',
      ms(median(parallel)),
      `${(median(parallel) / WAIT_MS).toFixed(3)}x of ${WAIT_MS} ms`,
    );
    report(
      'the same calls as sequential tools (once)',
      ms(sequential),
      `${(sequential / WAIT_MS).toFixed(2)}x of ${WAIT_MS} ms`,
    );
  } finally {
    await server.close();
  }
}
