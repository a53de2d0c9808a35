import type { FakeRequest } from '@switchyard/testkit';

// What the fake model's scripts read from a request the daemon sent it.

/** The turn's prompt: the text of the request's first user message. */
export function promptOf(request: FakeRequest): string {
  const { input } = request.body;
  if (typeof input === 'string') return input;
  const items = Array.isArray(input) ? (input as Array<{ role?: unknown; content?: unknown }>) : [];
  const content = items.find((item) => item.role === 'user')?.content;
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? (content as Array<{ text?: unknown }>) : [];
  return parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

/** The outputs of the function calls the request carries, as text. */
export function outputsOf(request: FakeRequest): string[] {
  return request.functionCallOutputs.map(({ output }) =>
    typeof output === 'string' ? output : JSON.stringify(output),
  );
}

/** Whether the request is a workflow task's turn (its instructions are a sub-agent's). */
export function isTaskTurn(request: FakeRequest): boolean {
  return String(request.body.instructions ?? '').includes('sub-agent');
}
