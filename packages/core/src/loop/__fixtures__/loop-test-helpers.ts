import type { FakeScriptStep } from '@switchyard/fake-responses-server';
import { type FakeResponsesServer, startFakeResponsesServer } from '@switchyard/fake-responses-server';
import OpenAI from 'openai';
import { afterEach } from 'vitest';
import {
  type AgentEvent,
  type AgentRunResult,
  createResponsesModel,
  type ResponsesModelOptions,
  type RunAgentLoopOptions,
  runAgentLoop,
} from '../../index';
import { expectRequestTypes } from './request-body-types';

const servers: FakeResponsesServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** What `runTurn` gives a test: the run's result, every event in order and the server. */
export interface TurnRecord {
  result: AgentRunResult;
  events: AgentEvent[];
  server: FakeResponsesServer;
}

/**
 * Runs one turn of core's loop through the real `openai` SDK against a fresh fake server, and
 * checks every request body it sent against the SDK's request types (`expectRequestTypes`).
 * The server is closed after the test (which fails it if a step function threw).
 */
export async function runTurn(
  script: FakeScriptStep[],
  options: Omit<RunAgentLoopOptions, 'model' | 'input'> & {
    input?: RunAgentLoopOptions['input'];
    model?: Partial<Omit<ResponsesModelOptions, 'client'>>;
    maxRetries?: number;
  },
): Promise<TurnRecord> {
  const server = await startFakeResponsesServer({ script });
  servers.push(server);
  const { model: modelOptions, maxRetries, input, ...loopOptions } = options;
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: maxRetries ?? 0 });
  const model = createResponsesModel({ client, model: 'fake-model', ...modelOptions });
  const run = runAgentLoop({ model, input: input ?? 'Hello', ...loopOptions });
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  const result = await run.result();
  // Every body the loop sent must be one the SDK's request types accept, field by field.
  expectRequestTypes(server.requests.map((request) => request.body));
  return { result, events, server };
}

/** The `tool-call-end` events, in emission order. */
export function toolCallEnds(events: readonly AgentEvent[]) {
  return events.filter((event) => event.type === 'tool-call-end');
}
