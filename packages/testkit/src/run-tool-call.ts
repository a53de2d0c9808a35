import type {
  AgentToolResult,
  AnyWorkerAgentTool,
  ToolCallEndEvent,
  ToolCallStartEvent,
  ToolProgress,
  WorkerAgentTool,
} from '@switchyard/core';
import { runToolCallOnce } from '@switchyard/core/internal';

/** Options of `runToolCall`. */
export interface RunToolCallOptions {
  /** Aborts the call, as the turn's signal would. */
  signal?: AbortSignal;
  /** The call id `execute` sees (default `call_test`). */
  toolCallId?: string;
  /** The response's finish reason the argument ladder is told, e.g. `max_output_tokens`. */
  finishReason?: string;
  /** Per-call timeout in milliseconds, as the loop's `toolTimeoutMs` (default: none). */
  timeoutMs?: number;
  /** Most UTF-8 bytes of text the result may have, as the loop's `maxToolResultBytes` (default 64 KiB). */
  maxResultBytes?: number;
  /**
   * How long a call that ignores its signal is waited for after a timeout or an abort, as the loop's
   * `abandonGraceMs` (default 5 s); past it the call is reported abandoned.
   */
  abandonGraceMs?: number;
}

/**
 * What `runToolCall` returns: core's own account of the call, as a turn's events give it (what
 * core's per-call pipeline returns), plus what `execute` threw.
 */
export interface RunToolCallResult {
  /**
   * The `tool-call-start` event (`params`, `repairs`, `activity`); absent when `execute` never ran
   * (invalid arguments, an abort before it could start).
   */
  start?: ToolCallStartEvent;
  /** Progress `execute` reported, in order. */
  progress: ToolProgress[];
  /**
   * The `tool-call-end` event: core's `outcome` (`completed` only for a result without `isError`;
   * a tool's own error result, a throw and a result without content are `tool-error`), the
   * completed activity label, the repairs, and `result`: what the model reads, capped like the loop
   * caps it (`details.resultCut` when cut), or the loop's message for a failure.
   */
  end: ToolCallEndEvent;
  /**
   * What `execute` threw or rejected with. The key is present only when it threw (test it with
   * `'thrown' in call`): the loop keeps only the message, in the output; a test wants the value.
   */
  thrown?: unknown;
}

/** A call's result, and whether `execute` returned a value with content (its own result). */
interface WatchedCall {
  call: RunToolCallResult;
  returnedResult: boolean;
}

/**
 * Runs one call of a tool exactly as a turn does, without a model: core's own per-call pipeline
 * (`runToolCallOnce`), so the argument ladder and validation, the label fallbacks, the timeout,
 * the result-shape check and the result cap are the loop's, and so is the vocabulary of the answer:
 * `end.outcome` is core's `ToolCallOutcome`. The argument string (or an object, sent as its JSON) is
 * what the model would send.
 *
 * Contract: never rejects for what the tool or the arguments do: invalid arguments, a throw, a
 * timeout, an abort (before or during `execute`) and a result without content each come back as
 * `end.outcome`, with the text the model would read in `end.result`; a throw also as `thrown`. A
 * broken `describeActivity` falls back to the tool name, as in a turn (`describeToolCategory`
 * reports it).
 *
 * @example
 * const call = await runToolCall(readNote, '{"path": "todo.md"}');
 * expect(call.end.outcome).toBe('completed');
 * const bad = await runToolCall(readNote, '{"path": 5}');
 * expect(bad.end).toMatchObject({ outcome: 'invalid-arguments', result: { content: expect.stringMatching(/path/) } });
 */
export async function runToolCall<TParams, TDetails>(
  tool: WorkerAgentTool<TParams, TDetails>,
  rawArguments: string | Record<string, unknown>,
  options: RunToolCallOptions = {},
): Promise<RunToolCallResult> {
  return (await runWatched(tool, rawArguments, options)).call;
}

async function runWatched<TParams, TDetails>(
  tool: WorkerAgentTool<TParams, TDetails>,
  rawArguments: string | Record<string, unknown>,
  options: RunToolCallOptions,
): Promise<WatchedCall> {
  const raw = typeof rawArguments === 'string' ? rawArguments : JSON.stringify(rawArguments);
  let thrown: { value: unknown } | undefined;
  // Whether `execute` returned a result with content: for `callTool`, which answers the tool's own
  // `isError` result (core's `tool-error`, as a throw is) and rejects for the rest.
  let returnedResult = false;
  const watched: AnyWorkerAgentTool = {
    ...(tool as AnyWorkerAgentTool),
    execute: async (params, context) => {
      try {
        const value = await tool.execute(params as TParams, context);
        returnedResult = hasContent(value);
        return value;
      } catch (error) {
        thrown = { value: error };
        throw error;
      }
    },
  };
  const once = await runToolCallOnce(watched, raw, {
    callId: options.toolCallId ?? 'call_test',
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.finishReason === undefined ? {} : { finishReason: options.finishReason }),
    ...(options.timeoutMs === undefined ? {} : { toolTimeoutMs: options.timeoutMs }),
    ...(options.maxResultBytes === undefined ? {} : { maxToolResultBytes: options.maxResultBytes }),
    ...(options.abandonGraceMs === undefined ? {} : { abandonGraceMs: options.abandonGraceMs }),
  });
  const call: RunToolCallResult = thrown === undefined ? once : { ...once, thrown: thrown.value };
  return { call, returnedResult };
}

function hasContent(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const content = (value as { content?: unknown }).content;
  return typeof content === 'string' || Array.isArray(content);
}

/**
 * Runs the tool named `name` among `tools` (a category's list) on `params` through `runToolCall`
 * and returns its result: the shortest way for a category's tests to call one of its tools.
 *
 * Contract: rejects, naming the tool, when no tool has that name or the call does not end with a
 * result of the tool's own: the message carries core's outcome and the output the model would read
 * (`read_note ended invalid-arguments: ...`), and the thrown value is the error's `cause` when
 * `execute` threw. A tool's own `isError` result (outcome `tool-error`) is returned, like a
 * `completed` one.
 *
 * @example
 * const result = await callTool(createBrainTools({ brain, agentId: 'ada' }), 'remember', { text: 'hi' });
 */
export async function callTool(
  tools: readonly AnyWorkerAgentTool[],
  name: string,
  params: Record<string, unknown>,
): Promise<AgentToolResult<unknown>> {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool named ${name}`);
  const { call, returnedResult } = await runWatched(tool, params, {});
  const { outcome, result } = call.end;
  const ownResult = outcome === 'completed' || (outcome === 'tool-error' && returnedResult);
  if (!ownResult) {
    const output = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
    throw new Error(
      `${name} ended ${outcome}: ${output}`,
      'thrown' in call ? { cause: call.thrown } : undefined,
    );
  }
  return result;
}
