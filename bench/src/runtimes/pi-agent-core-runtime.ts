import { type AgentLoopConfig, type AgentTool, runAgentLoop } from '@mariozechner/pi-agent-core';
import type { BenchRuntime } from './bench-runtime';

type PiModel = AgentLoopConfig['model'];
type PiMessages = ReturnType<AgentLoopConfig['convertToLlm']>;

/**
 * pi's agent core (`@mariozechner/pi-agent-core` 0.73): `runAgentLoop` with a pi-ai model of API
 * `openai-responses` whose `baseUrl` is the fake server, tools in parallel execution mode with
 * their strict JSON Schema as parameters (pi validates arguments against it).
 */
export const piAgentCoreRuntime: BenchRuntime = {
  name: 'pi-agent-core',
  prepare(turn) {
    const model: PiModel = {
      id: 'bench-model',
      name: 'bench-model',
      api: 'openai-responses',
      provider: 'openai',
      baseUrl: turn.baseURL,
      reasoning: false,
      input: ['text'],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 128_000,
      maxTokens: 4096,
    };
    const tools: AgentTool[] = turn.tools.map((benchTool) => ({
      name: benchTool.name,
      label: benchTool.name,
      description: benchTool.description,
      parameters: benchTool.parameters as AgentTool['parameters'],
      executionMode: 'parallel',
      execute: async (_toolCallId, params) => ({
        content: [{ type: 'text', text: await benchTool.execute(params as Record<string, unknown>) }],
        details: undefined,
      }),
    }));
    const config: AgentLoopConfig = {
      model,
      apiKey: 'bench',
      toolExecution: 'parallel',
      convertToLlm: (messages) => messages as PiMessages,
    };
    return async () => {
      const messages = await runAgentLoop(
        [{ role: 'user', content: turn.input, timestamp: Date.now() }],
        { systemPrompt: turn.instructions, messages: [], tools },
        config,
        () => {},
      );
      const last = messages.at(-1);
      if (last === undefined || !('role' in last) || last.role !== 'assistant')
        throw new Error('pi-agent-core ended without an assistant message');
      if (last.stopReason === 'error' || last.stopReason === 'aborted')
        throw new Error(`pi-agent-core turn ended ${last.stopReason}: ${last.errorMessage}`);
      return last.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    };
  },
};
