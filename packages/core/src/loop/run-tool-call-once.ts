import { randomUUID } from 'node:crypto';
import type { ResponseFunctionToolCall } from 'openai/resources/responses/responses';
import type { ToolCallEndEvent, ToolCallStartEvent } from '../events/agent-event';
import { agentToolMap, toolKey } from '../tool/agent-tool-map';
import type { AnyWorkerAgentTool, ToolProgress } from '../tool/worker-agent-tool';
import { resolveCallLimits } from './call-limits';
import { executeToolCall } from './execute-tool-call';

/** Options of `runToolCallOnce`. */
export interface RunToolCallOnceOptions {
  /** Aborts the call, as the turn's signal would (default: never aborts). */
  signal?: AbortSignal;
  /** The call's `call_id`, which `execute` sees as `toolCallId` (default `call_once`). */
  callId?: string;
  /**
   * The key `execute` sees as `context.idempotencyKey` (default: a new one for every run, since each
   * run is a call of its own). Give the same key to run the same call again, as a resumed turn would.
   */
  idempotencyKey?: string;
  /** The response's finish reason the argument ladder is told, e.g. `max_output_tokens`. */
  finishReason?: string;
  /** Per-call timeout in milliseconds, as `runAgentLoop`'s `toolTimeoutMs` (default: none). */
  toolTimeoutMs?: number;
  /** Most UTF-8 bytes of text the result may have, as `runAgentLoop`'s (default 64 KiB). */
  maxToolResultBytes?: number;
  /**
   * How long a call that ignores its signal is waited for after a timeout or an abort before it is
   * reported abandoned, as `runAgentLoop`'s `abandonGraceMs` (default 5 s).
   */
  abandonGraceMs?: number;
}

/** What `runToolCallOnce` returns: the events the loop would emit for the call, and its progress. */
export interface ToolCallOnceResult {
  /** The `tool-call-start` event; absent when `execute` never ran (invalid arguments, an abort first). */
  start?: ToolCallStartEvent;
  /** Progress `execute` reported, in order. */
  progress: ToolProgress[];
  /** The `tool-call-end` event: outcome, labels, repairs and the (capped) result the model reads. */
  end: ToolCallEndEvent;
}

/**
 * Runs one call of one tool through the loop's own per-call pipeline, without a model: the argument
 * ladder and validation, the activity labels and their fallbacks, `execute` under the signal and the
 * timeout, the result-shape check and the result cap. The testkit's `runToolCall` is built on it, so
 * a tool's tests exercise exactly what a turn runs.
 *
 * Contract: never rejects for anything the tool or the arguments do: every outcome comes back as the
 * `end` event's `outcome` (one of `TOOL_CALL_OUTCOMES`), with the output the model would read in
 * `end.result`. Bad options (a non-positive `toolTimeoutMs`, a `maxToolResultBytes` under 1024, a
 * negative `abandonGraceMs`) reject with a `TypeError` naming the option, as `runAgentLoop` throws.
 *
 * @example
 * const { end } = await runToolCallOnce(readNote, '{"path": "todo.md"}', { toolTimeoutMs: 5000 });
 * if (end.outcome === 'completed') console.log(end.activity, end.result.content);
 */
export async function runToolCallOnce(
  tool: AnyWorkerAgentTool,
  rawArguments: string,
  options: RunToolCallOnceOptions = {},
): Promise<ToolCallOnceResult> {
  // The same checks and defaults as the loop's, so a call here runs under the limits a turn would give it.
  const limits = resolveCallLimits('runToolCallOnce', options);
  const idempotencyKey = options.idempotencyKey ?? `once:${randomUUID()}`;
  const tools = agentToolMap([tool]);
  const call: ResponseFunctionToolCall = {
    type: 'function_call',
    call_id: options.callId ?? 'call_once',
    name: tool.name,
    ...(tool.namespace === undefined ? {} : { namespace: tool.namespace }),
    arguments: rawArguments,
  };
  let start: ToolCallStartEvent | undefined;
  let end: ToolCallEndEvent | undefined;
  const progress: ToolProgress[] = [];
  await executeToolCall({ call, itemIndex: 0, key: toolKey(call) }, options.finishReason, {
    ...limits,
    tools,
    signal: options.signal ?? new AbortController().signal,
    beforeToolCall: undefined,
    emit: (event) => {
      if (event.type === 'tool-call-start') start = event;
      else if (event.type === 'tool-call-progress') progress.push(event.progress);
      else if (event.type === 'tool-call-end') end = event;
    },
    recordOutput: () => {},
    // One call on its own: a key of its own, unless the caller runs a call again under its key.
    idempotencyKey: () => idempotencyKey,
    transcript: () => [],
  });
  // executeToolCall emits exactly one tool-call-end for every call it is given.
  if (end === undefined) throw new Error(`runToolCallOnce: no tool-call-end for '${tool.name}'`);
  return { ...(start === undefined ? {} : { start }), progress, end };
}
