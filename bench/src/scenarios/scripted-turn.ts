import type { FakeRequest, FakeResponse } from '@switchyard/testkit';

/** Model requests in one scripted turn (the last one answers with text). */
export const TURN_ITERATIONS = 20;
/** Parallel calls in each tool-calling response. */
export const TURN_BATCH = 3;
/** The final answer every runtime must return. */
export const TURN_ANSWER = 'All done.';

function outputsIn(body: Record<string, unknown>): number {
  return Array.isArray(body.input)
    ? (body.input as Array<{ type?: string }>).filter((item) => item.type === 'function_call_output').length
    : 0;
}

/** The call the script makes as call `position` of iteration `iteration`. */
export function scriptedCall(tools: readonly { name: string }[], iteration: number, position: number) {
  const tool = tools[(iteration * 7 + position * 13) % tools.length];
  return {
    name: tool?.name ?? '',
    callId: `call_${iteration}_${position}`,
    path: `notes/file-${iteration}-${position}.md`,
  };
}

/**
 * The scripted turn: responses 0..18 each ask for a parallel batch of 3 calls, the 20th answers
 * with text; `argumentsFor` gives each call's arguments (by default the shared bench schema's). The iteration is read from the request (how many call outputs its input carries), so
 * one script serves every runtime and any number of turns.
 */
export function scriptedTurn(
  tools: readonly { name: string }[],
  argumentsFor: (name: string, path: string) => Record<string, unknown> = (_name, path) => ({
    path,
    limit: 20,
    mode: null,
    filters: null,
  }),
): (request: FakeRequest) => FakeResponse {
  return (request) => {
    const iteration = Math.floor(outputsIn(request.body) / TURN_BATCH);
    if (iteration >= TURN_ITERATIONS - 1) return { text: TURN_ANSWER };
    return {
      functionCalls: Array.from({ length: TURN_BATCH }, (_, position) => {
        const call = scriptedCall(tools, iteration, position);
        return {
          name: call.name,
          callId: call.callId,
          arguments: argumentsFor(call.name, call.path),
        };
      }),
    };
  };
}

/**
 * Checks one recorded turn: exactly 20 requests, request i carrying the outputs of all 3i calls
 * before it, and the last request holding every call's output with the text the tool returned for
 * the path the script sent. Returns the problems (empty when the runtime did the whole turn).
 */
export function checkRecordedTurn(
  tools: readonly { name: string }[],
  requests: readonly FakeRequest[],
  executed: number,
): string[] {
  const problems: string[] = [];
  if (requests.length !== TURN_ITERATIONS)
    problems.push(`made ${requests.length} model requests, expected ${TURN_ITERATIONS}`);
  requests.forEach((request, index) => {
    const outputs = request.functionCallOutputs.length;
    if (outputs !== index * TURN_BATCH)
      problems.push(`request ${index} carried ${outputs} call outputs, expected ${index * TURN_BATCH}`);
  });
  const last = requests.at(-1);
  const byId = new Map(last?.functionCallOutputs.map((output) => [output.callId, output.output]) ?? []);
  for (let iteration = 0; iteration < TURN_ITERATIONS - 1; iteration += 1) {
    for (let position = 0; position < TURN_BATCH; position += 1) {
      const call = scriptedCall(tools, iteration, position);
      const output = byId.get(call.callId);
      const text = typeof output === 'string' ? output : JSON.stringify(output);
      if (text === undefined || !text.includes(`${call.name} done for ${call.path}`))
        problems.push(`${call.callId} (${call.name}) output ${String(text).slice(0, 80)}`);
    }
  }
  const expected = (TURN_ITERATIONS - 1) * TURN_BATCH;
  if (executed !== expected) problems.push(`executed ${executed} tool calls, expected ${expected}`);
  return problems;
}
