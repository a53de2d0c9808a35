import { type AgentLoopConfig, type AgentTool, runAgentLoop } from '@mariozechner/pi-agent-core';
import { z } from 'zod';
import type { BenchRuntime } from './bench-runtime';

type PiModel = AgentLoopConfig['model'];
type PiMessages = ReturnType<AgentLoopConfig['convertToLlm']>;

function piModel(baseUrl: string): PiModel {
  return {
    id: 'bench-model',
    name: 'bench-model',
    api: 'openai-responses',
    provider: 'openai',
    baseUrl,
    reasoning: false,
    input: ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 4096,
  };
}

function piConfig(model: PiModel): AgentLoopConfig {
  return {
    model,
    apiKey: 'bench',
    toolExecution: 'parallel',
    convertToLlm: (messages) => messages as PiMessages,
  };
}

async function runPiTurn(
  tools: AgentTool[],
  config: AgentLoopConfig,
  instructions: string,
  input: string,
): Promise<string> {
  const messages = await runAgentLoop(
    [{ role: 'user', content: input, timestamp: Date.now() }],
    { systemPrompt: instructions, messages: [], tools },
    config,
    () => {},
  );
  const last = messages.at(-1);
  if (last === undefined || !('role' in last) || last.role !== 'assistant')
    throw new Error('pi-agent-core ended without an assistant message');
  if (last.stopReason === 'error' || last.stopReason === 'aborted')
    throw new Error(`pi-agent-core turn ended ${last.stopReason}: ${last.errorMessage}`);
  return last.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/**
 * pi's agent core (`@mariozechner/pi-agent-core` 0.73): `runAgentLoop` with a pi-ai model of API
 * `openai-responses` whose `baseUrl` is the fake server, tools in parallel execution mode with
 * their strict JSON Schema as parameters (pi validates arguments against it). In a composed turn
 * the Zod schemas become JSON Schema with `z.toJSONSchema` inside the turn (pi takes TypeBox or
 * plain JSON Schema, and compiles its validator from it).
 */
export const piAgentCoreRuntime: BenchRuntime = {
  name: 'pi-agent-core',
  prepare(turn) {
    const config = piConfig(piModel(turn.baseURL));
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
    return () => runPiTurn(tools, config, turn.instructions, turn.input);
  },
  composeTurn(turn) {
    const config = piConfig(piModel(turn.baseURL));
    return () => {
      const tools: AgentTool[] = turn.specs().map((spec) => ({
        name: spec.name,
        label: spec.name,
        description: spec.description,
        parameters: z.toJSONSchema(spec.schema) as unknown as AgentTool['parameters'],
        executionMode: 'parallel',
        execute: async (_toolCallId, params) => ({
          content: [{ type: 'text', text: await turn.execute(spec, params as Record<string, unknown>) }],
          details: undefined,
        }),
      }));
      return runPiTurn(tools, config, turn.instructions, turn.input);
    };
  },
};
