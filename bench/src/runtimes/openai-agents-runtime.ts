import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import type { BenchRuntime } from './bench-runtime';

/** The strict JSON-Schema shape `tool()` accepts as `parameters` (the bench tools' schemas are strict). */
export type AgentsStrictSchema = {
  type: 'object';
  properties: Record<string, never>;
  required: never[];
  additionalProperties: false;
};

/**
 * The OpenAI Agents SDK (`@openai/agents` 0.20): an `Agent` with strict JSON-Schema function tools,
 * run streamed by a `Runner` whose `OpenAIProvider` (Responses API) points at the fake server.
 * Tracing is off (it would try to export to OpenAI). The SDK runs one response's calls concurrently.
 */
export const openaiAgentsRuntime: BenchRuntime = {
  name: 'OpenAI Agents SDK',
  prepare(turn) {
    setTracingDisabled(true);
    const provider = new OpenAIProvider({ apiKey: 'bench', baseURL: turn.baseURL, useResponses: true });
    const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
    const agent = new Agent({
      name: 'bench',
      instructions: turn.instructions,
      model: 'bench-model',
      modelSettings: { store: false },
      tools: turn.tools.map((benchTool) =>
        tool({
          name: benchTool.name,
          description: benchTool.description,
          parameters: benchTool.parameters as AgentsStrictSchema,
          strict: true,
          execute: (input) => benchTool.execute(input as Record<string, unknown>),
        }),
      ),
    });
    return async () => {
      const result = await runner.run(agent, turn.input, { stream: true, maxTurns: 1000 });
      for await (const _event of result) {
        // Drain the stream as an application would.
      }
      await result.completed;
      return String(result.finalOutput ?? '');
    };
  },
  composeTurn(turn) {
    setTracingDisabled(true);
    const provider = new OpenAIProvider({ apiKey: 'bench', baseURL: turn.baseURL, useResponses: true });
    const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
    return async () => {
      // The Agents SDK takes Zod directly: it converts and validates the schemas itself.
      const agent = new Agent({
        name: 'bench',
        instructions: turn.instructions,
        model: 'bench-model',
        modelSettings: { store: false },
        tools: turn.specs().map((spec) =>
          tool({
            name: spec.name,
            description: spec.description,
            parameters: spec.schema,
            execute: (input) => turn.execute(spec, input as Record<string, unknown>),
          }),
        ),
      });
      const result = await runner.run(agent, turn.input, { stream: true, maxTurns: 1000 });
      for await (const _event of result) {
        // Drain the stream as an application would.
      }
      await result.completed;
      return String(result.finalOutput ?? '');
    };
  },
};
