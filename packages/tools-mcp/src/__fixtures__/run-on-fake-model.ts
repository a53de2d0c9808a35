import { type AgentRun, type AnyWorkerAgentTool, createResponsesModel, runAgentLoop } from '@switchyard/core';
import { type FakeResponsesServer, type FakeScriptStep, startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';

/**
 * Runs the agent loop with `tools` against a fake Responses server playing `script`, through the
 * real openai SDK; `check` reads the run and the requests the fake received. The fake is closed
 * afterwards whatever `check` does.
 */
export async function runOnFakeModel(
  options: { script: FakeScriptStep[]; tools: AnyWorkerAgentTool[]; input: string },
  check: (loop: { run: AgentRun; fake: FakeResponsesServer }) => Promise<void>,
): Promise<void> {
  const fake = await startFakeResponsesServer({ script: options.script });
  try {
    const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test', maxRetries: 0 });
    const run = runAgentLoop({
      model: createResponsesModel({ client, model: 'fake-model' }),
      tools: options.tools,
      input: options.input,
    });
    await check({ run, fake });
  } finally {
    await fake.close();
  }
}
