import { createOpenAI } from '@ai-sdk/openai';
import { runAgentLoop as runPiLoop } from '@mariozechner/pi-agent-core';
import {
  Agent,
  tool as agentsTool,
  OpenAIProvider,
  Runner,
  toolNamespace,
  toolSearchTool,
} from '@openai/agents';
import { createResponsesModel, defineWorkerTool, runAgentLoop, type ToolSearchMode } from '@switchyard/core';
import { startFakeResponsesServer } from '@switchyard/testkit';
import { tool as aiTool, jsonSchema, streamText, type ToolSet } from 'ai';
import OpenAI from 'openai';
import { bytes, heading, report } from '../measure';
import type { BenchTool } from '../runtimes/bench-runtime';
import type { AgentsStrictSchema } from '../runtimes/openai-agents-runtime';
import { benchTools } from '../scenarios/bench-tools';

const TOOL_COUNT = 300;
const NAMESPACES = 10;

/** One measured request. */
export interface SchemaBytesRow {
  /** Runtime. */
  runtime: string;
  /** How the tools were declared. */
  variant: string;
  /** UTF-8 bytes of the request's `tools` array (JSON). */
  bytes: number;
  /** Entries in the `tools` array. */
  entries: number;
}

/** What the schema-bytes benchmark found. */
export interface SchemaBytesResult {
  tools: number;
  namespaces: number;
  rows: SchemaBytesRow[];
  /** Runtimes or variants that have no equivalent, with why. */
  notes: string[];
}

const namespaceOf = (index: number) => ({
  name: `service_${index % NAMESPACES}`,
  description: `Service ${index % NAMESPACES}: one external system's tools.`,
});

/** Switchyard: eager, deferred behind client Tool Search, deferred behind native Tool Search. */
function switchyardRequest(tools: readonly BenchTool[], deferLoading: boolean, toolSearch: ToolSearchMode) {
  return async (baseURL: string) => {
    const model = createResponsesModel({
      client: new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 }),
      model: 'bench-model',
    });
    const workerTools = tools.map((tool, index) =>
      defineWorkerTool({
        name: tool.name,
        description: tool.description,
        schema: tool.schema,
        namespace: namespaceOf(index).name,
        namespaceDescription: namespaceOf(index).description,
        deferLoading,
        describeActivity: () => tool.name,
        execute: () => ({ content: 'ok' }),
      }),
    );
    await runAgentLoop({ model, tools: workerTools, input: 'Go.', toolSearch }).result();
  };
}

function bareRequest(tools: readonly BenchTool[]) {
  return async (baseURL: string) => {
    const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
    await client.responses.create({
      model: 'bench-model',
      input: 'Go.',
      store: false,
      tools: tools.map((tool) => ({
        type: 'function' as const,
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        strict: true,
      })),
    });
  };
}

function aiSdkRequest(tools: readonly BenchTool[], mode: 'flat' | 'namespaced' | 'deferred') {
  return async (baseURL: string) => {
    const provider = createOpenAI({ baseURL, apiKey: 'bench' });
    const set: ToolSet = Object.fromEntries(
      tools.map((tool, index) => [
        tool.name,
        aiTool({
          description: tool.description,
          inputSchema: jsonSchema<Record<string, unknown>>(tool.parameters),
          strict: true,
          execute: async () => 'ok',
          ...(mode === 'flat'
            ? {}
            : {
                providerOptions: {
                  openai: {
                    namespace: namespaceOf(index),
                    ...(mode === 'deferred' ? { deferLoading: true } : {}),
                  },
                },
              }),
        }),
      ]),
    );
    if (mode === 'deferred') set.tool_search = provider.tools.toolSearch({}) as unknown as ToolSet[string];
    const result = streamText({
      model: provider.responses('bench-model'),
      prompt: 'Go.',
      tools: set,
      maxRetries: 0,
      providerOptions: { openai: { store: false } },
    });
    await result.text;
  };
}

function agentsRequest(tools: readonly BenchTool[], mode: 'flat' | 'namespaced' | 'deferred') {
  return async (baseURL: string) => {
    const functionTools = tools.map((tool) =>
      agentsTool({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters as AgentsStrictSchema,
        strict: true,
        deferLoading: mode === 'deferred',
        execute: async () => 'ok',
      }),
    );
    const declared =
      mode === 'flat'
        ? functionTools
        : Array.from({ length: NAMESPACES }, (_, group) =>
            toolNamespace({
              ...namespaceOf(group),
              tools: functionTools.filter((_, index) => index % NAMESPACES === group),
            }),
          ).flat();
    const agent = new Agent({
      name: 'bench',
      model: 'bench-model',
      modelSettings: { store: false },
      tools: mode === 'deferred' ? [...declared, toolSearchTool()] : declared,
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ apiKey: 'bench', baseURL, useResponses: true }),
      tracingDisabled: true,
    });
    await runner.run(agent, 'Go.');
  };
}

function piRequest(tools: readonly BenchTool[]) {
  return async (baseURL: string) => {
    await runPiLoop(
      [{ role: 'user', content: 'Go.', timestamp: Date.now() }],
      {
        systemPrompt: '',
        messages: [],
        tools: tools.map((tool) => ({
          name: tool.name,
          label: tool.name,
          description: tool.description,
          parameters: tool.parameters as never,
          execute: async () => ({ content: [{ type: 'text' as const, text: 'ok' }], details: undefined }),
        })),
      },
      {
        model: {
          id: 'bench-model',
          name: 'bench-model',
          api: 'openai-responses',
          provider: 'openai',
          baseUrl: baseURL,
          reasoning: false,
          input: ['text'],
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          contextWindow: 128_000,
          maxTokens: 4096,
        },
        apiKey: 'bench',
        convertToLlm: (messages) => messages as never,
      },
      () => {},
    );
  };
}

/**
 * Request tool-schema bytes with 300 tools in 10 namespaces, measured on the actual first request
 * body each runtime sent to the fake server: Switchyard eager and deferred (client and native Tool
 * Search), the bare SDK's flat list, and each peer's flat, namespaced and deferred declarations
 * where the peer has them.
 */
export async function schemaBytes(): Promise<SchemaBytesResult> {
  const tools = benchTools(TOOL_COUNT);
  const server = await startFakeResponsesServer({ script: () => ({ text: 'ok' }) });
  const variants: Array<[string, string, (baseURL: string) => Promise<void>]> = [
    ['bare openai SDK', 'flat function list, strict', bareRequest(tools)],
    ['switchyard', 'eager, 10 namespaces', switchyardRequest(tools, false, 'client')],
    ['switchyard', 'deferred, client Tool Search', switchyardRequest(tools, true, 'client')],
    ['switchyard', 'deferred, native Tool Search', switchyardRequest(tools, true, 'native')],
    ['Vercel AI SDK', 'flat function list, strict', aiSdkRequest(tools, 'flat')],
    ['Vercel AI SDK', 'eager, 10 namespaces', aiSdkRequest(tools, 'namespaced')],
    ['Vercel AI SDK', 'deferred, native Tool Search', aiSdkRequest(tools, 'deferred')],
    ['OpenAI Agents SDK', 'flat function list, strict', agentsRequest(tools, 'flat')],
    ['OpenAI Agents SDK', 'eager, 10 namespaces', agentsRequest(tools, 'namespaced')],
    ['OpenAI Agents SDK', 'deferred, native Tool Search', agentsRequest(tools, 'deferred')],
    ['pi-agent-core', 'flat function list', piRequest(tools)],
  ];
  const rows: SchemaBytesRow[] = [];
  const notes: string[] = [
    'pi-agent-core has no namespaces and no deferred loading: it always sends every schema.',
    "The AI SDK and the Agents SDK defer through the provider-side `defer_loading` flag with hosted Tool Search: the schemas are still in every request body (the provider keeps them out of the context). Only Switchyard's client Tool Search leaves them out of the request.",
  ];
  try {
    for (const [runtime, variant, request] of variants) {
      server.reset(() => ({ text: 'ok' }));
      try {
        await request(server.baseURL);
        const sent = server.requests[0]?.body.tools;
        if (!Array.isArray(sent)) throw new Error('no tools array in the request');
        rows.push({ runtime, variant, bytes: Buffer.byteLength(JSON.stringify(sent)), entries: sent.length });
      } catch (error) {
        notes.push(
          `${runtime}, ${variant}: failed (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    }
  } finally {
    await server.close().catch(() => {});
  }
  heading(`Request tool-schema bytes: ${TOOL_COUNT} tools in ${NAMESPACES} namespaces (first request)`);
  const eager = rows.find((row) => row.runtime === 'switchyard' && row.variant.startsWith('eager'))?.bytes;
  for (const row of rows)
    report(
      `${row.runtime}: ${row.variant}`,
      bytes(row.bytes),
      eager === undefined ? '' : `${((100 * row.bytes) / eager).toFixed(1)}% of Switchyard eager`,
    );
  for (const note of notes) process.stdout.write(`  note: ${note}\n`);
  return { tools: TOOL_COUNT, namespaces: NAMESPACES, rows, notes };
}
