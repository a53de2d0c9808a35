import OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { z } from 'zod';
import type { ToolSpec } from '../scenarios/varied-tools';
import type { BenchRuntime } from './bench-runtime';

/** What the bare loop needs of a turn: its client, request, and how it runs one call. */
export interface BareTurn {
  /** The SDK client (pointed at the fake server). */
  client: OpenAI;
  /** System instructions. */
  instructions: string;
  /** The user message. */
  input: string;
  /** The tools sent with every request. */
  tools: FunctionTool[];
  /** Runs one function call and returns its output. */
  runCall(call: ResponseFunctionToolCall): Promise<string>;
}

/**
 * The loop itself: streams each response, collects function calls, runs a response's calls with
 * Promise.all, appends outputs and repeats until a response has no call. (The daemon benchmark's
 * floor runs it too.)
 */
export async function runBareLoop(turn: BareTurn): Promise<string> {
  const input: ResponseInputItem[] = [{ role: 'user', content: turn.input }];
  for (;;) {
    const stream = await turn.client.responses.create({
      model: 'bench-model',
      instructions: turn.instructions,
      input,
      tools: turn.tools,
      store: false,
      stream: true,
    });
    const calls: ResponseFunctionToolCall[] = [];
    let text = '';
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      else if (event.type === 'response.output_item.done') {
        input.push(event.item as ResponseInputItem);
        if (event.item.type === 'function_call') calls.push(event.item);
      }
    }
    if (calls.length === 0) return text;
    const outputs = await Promise.all(
      calls.map(async (call) => ({
        type: 'function_call_output' as const,
        call_id: call.call_id,
        output: await turn.runCall(call),
      })),
    );
    input.push(...outputs);
  }
}

/**
 * The baseline: the smallest correct loop written directly on the openai SDK. Streams each
 * response, collects function calls, JSON.parses their arguments, runs a response's calls with
 * Promise.all, appends outputs and repeats. No events, timeouts or abort handling; in a composed
 * turn, each call's arguments are checked with the tool's Zod schema, as a careful user does.
 */
export const openaiSdkLoopRuntime: BenchRuntime = {
  name: 'bare openai SDK loop',
  prepare(turn) {
    const client = new OpenAI({ baseURL: turn.baseURL, apiKey: 'bench', maxRetries: 0 });
    const tools: FunctionTool[] = turn.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: true,
    }));
    const byName = new Map(turn.tools.map((tool) => [tool.name, tool]));
    return () =>
      runBareLoop({
        client,
        instructions: turn.instructions,
        input: turn.input,
        tools,
        runCall: async (call) => {
          const tool = byName.get(call.name);
          return tool ? await tool.execute(JSON.parse(call.arguments)) : `unknown tool ${call.name}`;
        },
      });
  },
  composeTurn(turn) {
    const client = new OpenAI({ baseURL: turn.baseURL, apiKey: 'bench', maxRetries: 0 });
    return () => {
      // What a careful user writes: each tool's JSON Schema from its Zod schema, every turn, and
      // the arguments parsed and checked with the same schema before the tool runs.
      const specs = turn.specs();
      const tools: FunctionTool[] = specs.map((spec) => ({
        type: 'function',
        name: spec.name,
        description: spec.description,
        parameters: z.toJSONSchema(spec.schema) as Record<string, unknown>,
        strict: false,
      }));
      const byName = new Map<string, ToolSpec>(specs.map((spec) => [spec.name, spec]));
      turn.toolsReady?.();
      return runBareLoop({
        client,
        instructions: turn.instructions,
        input: turn.input,
        tools,
        runCall: async (call) => {
          const spec = byName.get(call.name);
          if (spec === undefined) return `unknown tool ${call.name}`;
          let parsed: ReturnType<typeof spec.schema.safeParse>;
          try {
            parsed = spec.schema.safeParse(JSON.parse(call.arguments));
          } catch (error) {
            parsed = { success: false, error: error as z.ZodError } as typeof parsed;
          }
          return parsed.success
            ? await turn.execute(spec, parsed.data)
            : `invalid arguments: ${parsed.error.message}`;
        },
      });
    };
  },
};
