import { createResponsesModel, type ResponsesModel } from '@switchyard/core';
import type { FakeRequest } from '@switchyard/testkit';
import OpenAI from 'openai';

/** The text of the first user message of a request: the turn's prompt. */
export function promptOf(request: FakeRequest): string {
  const input = request.body.input;
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  for (const item of input as Array<{ role?: string; content?: unknown }>) {
    if (item.role !== 'user') continue;
    if (typeof item.content === 'string') return item.content;
    if (Array.isArray(item.content)) {
      return (item.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
    }
  }
  return '';
}

/** The outputs of the function calls so far, as text. */
export function outputsOf(request: FakeRequest): string[] {
  return request.functionCallOutputs.map((output) =>
    typeof output.output === 'string' ? output.output : JSON.stringify(output.output),
  );
}

/** Whether a request is a task turn's: its instructions are a sub-agent's. */
export function isTaskTurn(request: FakeRequest): boolean {
  return String(request.body.instructions ?? '').includes('sub-agent');
}

/** The tool outputs the turns of `prompt` received, in the order of the requests. */
export function outputsOfPrompt(requests: readonly FakeRequest[], prompt: string): string[] {
  return requests.filter((request) => promptOf(request) === prompt).flatMap(outputsOf);
}

/** The id (a UUID) in the first tool output of the turns of `prompt` that contains `text`. */
export function idInOutput(
  requests: readonly FakeRequest[],
  prompt: string,
  text: string,
): string | undefined {
  const output = outputsOfPrompt(requests, prompt).find((entry) => entry.includes(text));
  return /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(output ?? '')?.[0];
}

/** Resolves once `count` parties have arrived; rejects after `timeoutMs` (they did not run together). */
export function barrier(count: number, timeoutMs: number): () => Promise<void> {
  let arrived = 0;
  let release: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  return async () => {
    arrived += 1;
    if (arrived >= count) release();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        all,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`only ${arrived} of ${count} turns ran at the same time`)),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The real `openai` SDK's Responses model against a fake Responses server at `baseURL`, without retries. */
export function fakeServerModel(baseURL: string, model = 'fake-model'): ResponsesModel {
  return createResponsesModel({ client: new OpenAI({ baseURL, apiKey: 'test', maxRetries: 0 }), model });
}
