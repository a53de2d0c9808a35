import { createResponsesModel, defineWorkerTool, runAgentLoop } from '@switchyard/core';
import OpenAI from 'openai';
import type { BenchRuntime } from './bench-runtime';

/** Switchyard: `runAgentLoop` over `createResponsesModel`. */
export const switchyardRuntime: BenchRuntime = {
  name: 'switchyard',
  prepare(turn) {
    const client = new OpenAI({ baseURL: turn.baseURL, apiKey: 'bench', maxRetries: 0 });
    const model = createResponsesModel({ client, model: 'bench-model' });
    const tools = turn.tools.map((tool) =>
      defineWorkerTool({
        name: tool.name,
        description: tool.description,
        schema: tool.schema,
        executionMode: tool.parallel ? 'parallel' : 'sequential',
        describeActivity: () => tool.name,
        execute: async (params) => ({ content: await tool.execute(params) }),
      }),
    );
    return async () => {
      const run = runAgentLoop({ model, tools, instructions: turn.instructions, input: turn.input });
      const result = await run.result();
      if (result.status !== 'completed')
        throw new Error(`switchyard turn ended ${result.status}: ${result.error?.message}`);
      return result.output;
    };
  },
};
