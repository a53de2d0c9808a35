import type { ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses';
import { toolKey } from '../tool/agent-tool-map';
import type { ToolLookup } from '../tool-search/turn-tool-set';
import type { TurnToolCall } from './execute-tool-call';

/**
 * The function calls of `items[from..]` that have no output yet, in transcript order, each with its
 * item's index: none for an ordinary input; the held calls (and any call of their response not run
 * yet) of a turn continued from a stored transcript; every call of a response just appended.
 *
 * An output answers the earliest call before it with its `call_id` that has none yet: an endpoint
 * may reuse a call id in a later response, and that later call is not answered by the earlier
 * call's output.
 */
export function pendingFunctionCalls(items: readonly ResponseInputItem[], from = 0): TurnToolCall[] {
  const unanswered = new Map<string, TurnToolCall[]>();
  const pending: TurnToolCall[] = [];
  for (let index = from; index < items.length; index += 1) {
    const item = items[index] as ResponseInputItem;
    if (item.type === 'function_call') {
      const call: TurnToolCall = { call: item, itemIndex: index, key: toolKey(item) };
      pending.push(call);
      const waiting = unanswered.get(item.call_id);
      if (waiting === undefined) unanswered.set(item.call_id, [call]);
      else waiting.push(call);
    } else if (item.type === 'function_call_output') {
      const answered = unanswered.get(item.call_id)?.shift();
      if (answered !== undefined) pending.splice(pending.indexOf(answered), 1);
    }
  }
  return pending;
}

/** The function calls among a response's `items`, the first of which will sit at `offset` in the transcript. */
export function callsOf(items: readonly ResponseInputItem[], offset: number): TurnToolCall[] {
  const calls: TurnToolCall[] = [];
  items.forEach((item, index) => {
    if (item.type === 'function_call')
      calls.push({ call: item, itemIndex: offset + index, key: toolKey(item) });
  });
  return calls;
}

/** How many calls of `calls` share each `call_id`, for the ids more than one call has. */
export function sharedCallIds(calls: readonly TurnToolCall[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { call } of calls) counts.set(call.call_id, (counts.get(call.call_id) ?? 0) + 1);
  for (const [id, count] of counts) if (count === 1) counts.delete(id);
  return counts;
}

/** Whether `call` may run with its parallel neighbours (`shared`: the response's repeated call ids). */
export function isParallelCall(
  { call, key }: TurnToolCall,
  tools: ToolLookup,
  shared: ReadonlyMap<string, number>,
): boolean {
  const tool = tools.get(key);
  // Unknown tools and refused calls cost nothing, so they never need to wait for a batch.
  return tool === undefined || shared.has(call.call_id) || tool.executionMode === 'parallel';
}

/**
 * Of a new response's `calls`, those whose start its journal entry carries (`JournalResponse.started`):
 * the calls that run at once when it is dispatched (the first, or the leading run of parallel calls
 * within `maxParallelCalls`, as `dispatchToolCalls` starts them) and whose tool is read-only or
 * idempotent, so that one in doubt runs again anyway.
 */
export function startsWithResponse(
  calls: readonly TurnToolCall[],
  tools: ToolLookup,
  maxParallelCalls: number,
): TurnToolCall[] {
  const first = calls[0];
  if (first === undefined) return [];
  const shared = sharedCallIds(calls);
  let atOnce = [first];
  if (isParallelCall(first, tools, shared)) {
    const run = calls.findIndex((call) => !isParallelCall(call, tools, shared));
    atOnce = calls.slice(0, Math.min(run === -1 ? calls.length : run, maxParallelCalls));
  }
  return atOnce.filter(({ call, key }) => {
    const tool = tools.get(key);
    return tool !== undefined && !shared.has(call.call_id) && (tool.isReadOnly || tool.idempotent === true);
  });
}

/** The text of a response's messages: of its output, or of the items it added (a replayed one). */
export function outputText(output: readonly (ResponseOutputItem | ResponseInputItem)[]): string {
  let text = '';
  for (const item of output) {
    if (item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) if (part.type === 'output_text') text += part.text;
  }
  return text;
}
