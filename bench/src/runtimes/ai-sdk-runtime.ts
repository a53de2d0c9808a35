import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, type LanguageModel, stepCountIs, streamText, type ToolSet, tool } from 'ai';
import type { BenchRuntime } from './bench-runtime';

/** One turn through `streamText`, with a step limit high enough for the whole turn. */
async function streamTurn(
  model: LanguageModel,
  tools: ToolSet,
  turn: { instructions: string; input: string },
): Promise<string> {
  const result = streamText({
    model,
    system: turn.instructions,
    prompt: turn.input,
    tools,
    maxRetries: 0,
    stopWhen: stepCountIs(1000),
    providerOptions: { openai: { store: false } },
  });
  return await result.text;
}

/**
 * The Vercel AI SDK (`ai` 6 with `@ai-sdk/openai` 3): `streamText` over the OpenAI Responses
 * provider pointed at the fake server, tools with their strict JSON Schema, `store: false`, and a
 * step limit high enough for the whole turn. The SDK runs one step's tool calls concurrently.
 */
export const aiSdkRuntime: BenchRuntime = {
  name: 'Vercel AI SDK',
  prepare(turn) {
    const provider = createOpenAI({ baseURL: turn.baseURL, apiKey: 'bench' });
    const model = provider.responses('bench-model');
    const tools: ToolSet = Object.fromEntries(
      turn.tools.map((benchTool) => [
        benchTool.name,
        tool({
          description: benchTool.description,
          inputSchema: jsonSchema<Record<string, unknown>>(benchTool.parameters),
          strict: true,
          execute: (input: Record<string, unknown>) => benchTool.execute(input),
        }),
      ]),
    );
    return () => streamTurn(model, tools, turn);
  },
  composeTurn(turn) {
    const provider = createOpenAI({ baseURL: turn.baseURL, apiKey: 'bench' });
    const model = provider.responses('bench-model');
    return async () => {
      // The AI SDK takes Zod directly: it converts and validates the schemas itself.
      const tools: ToolSet = Object.fromEntries(
        turn.specs().map((spec) => [
          spec.name,
          tool({
            description: spec.description,
            inputSchema: spec.schema,
            execute: (input: Record<string, unknown>) => turn.execute(spec, input),
          }),
        ]),
      );
      return streamTurn(model, tools, turn);
    };
  },
};
