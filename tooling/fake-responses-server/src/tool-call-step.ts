import type { FakeFunctionCall, FakeResponse } from './fake-script';

/**
 * A script step whose whole answer is one call of the tool `name` with `args`: the most common
 * step of a scripted turn. Spread it to add other keys of the response
 * (`{ delayMs: 300, ...toolCallStep('look_up', { word }) }`); several calls in one response, a
 * namespace, a `callId` or `chunks` are written out as `functionCalls`.
 *
 * @example
 * const server = await startFakeResponsesServer({
 *   script: [toolCallStep('read_note', { path: 'todo.md' }), { text: 'You need to buy milk.' }],
 * });
 */
export function toolCallStep(name: string, args: FakeFunctionCall['arguments']): FakeResponse {
  return { functionCalls: [{ name, arguments: args }] };
}
