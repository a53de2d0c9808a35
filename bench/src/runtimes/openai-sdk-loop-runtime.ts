import OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { BenchRuntime } from './bench-runtime';

/**
 * The baseline: the smallest correct loop written directly on the openai SDK. Streams each
 * response, collects function calls, JSON.parses their arguments, runs a response's calls with
 * Promise.all, appends outputs and repeats. No validation, events, timeouts or abort handling.
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
    return async () => {
      const input: ResponseInputItem[] = [{ role: 'user', content: turn.input }];
      for (;;) {
        const stream = await client.responses.create({
          model: 'bench-model',
          instructions: turn.instructions,
          input,
          tools,
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
          calls.map(async (call) => {
            const tool = byName.get(call.name);
            const output = tool
              ? await tool.execute(JSON.parse(call.arguments))
              : `unknown tool ${call.name}`;
            return { type: 'function_call_output' as const, call_id: call.call_id, output };
          }),
        );
        input.push(...outputs);
      }
    };
  },
};
