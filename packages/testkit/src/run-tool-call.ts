import type { AgentToolResult, AnyWorkerAgentTool, ToolProgress, WorkerAgentTool } from '@switchyard/core';
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

/** What every call that got past validation carries. */
interface RanCall<TParams> {
  /** The validated parameters. */
  params: TParams;
  /** Repairs the argument ladder made. */
  repairs: string[];
  /** The `describeActivity` label (the tool name when it throws or returns no text, as in a turn). */
  activity: string;
  /** Progress reported, in order. */
  progress: ToolProgress[];
}

/** What `runToolCall` returns. */
export type RunToolCallResult<TParams, TDetails> =
  | {
      /** The arguments did not parse or validate; `execute` did not run. */
      status: 'invalid-arguments';
      /** The message the model would read as the call's output. */
      error: string;
      /** The same message: every status but `completed` has the `output` the model would read. */
      output: string;
    }
  | (RanCall<TParams> & {
      /** `execute` returned a result (which may itself have `isError`). */
      status: 'completed';
      /**
       * The result as the model gets it: capped like the loop caps it (`details.resultCut` when
       * cut), with `details.argumentRepairs` when the ladder repaired the arguments.
       */
      result: AgentToolResult<TDetails>;
      /** The `describeCompletedActivity` label (the activity label when the tool has none or it fails). */
      completedActivity: string;
    })
  | {
      /** `signal` had aborted before `execute` could start; nothing ran. */
      status: 'not-run';
      /** The output the model would read. */
      output: string;
    }
  | (RanCall<TParams> & {
      /** `execute` threw or rejected (the loop records `Tool '<name>' failed: <message>`). */
      status: 'threw';
      /** What it threw. */
      error: unknown;
      /** The output the model would read. */
      output: string;
    })
  | (RanCall<TParams> & {
      /**
       * `timeout`: it ran past `timeoutMs`; `cancelled`: `signal` aborted while it ran; `invalid-result`:
       * it returned something without string or array `content`.
       */
      status: 'timeout' | 'cancelled' | 'invalid-result';
      /** The output the model would read. */
      output: string;
    });

const noThrow = Symbol('no throw');

/**
 * Runs one call of a tool exactly as a turn does, without a model: core's own per-call pipeline
 * (`runToolCallOnce`), so the argument ladder and validation, the label fallbacks, the timeout,
 * the result-shape check and the result cap are the loop's. The argument string (or an object,
 * sent as its JSON) is what the model would send.
 *
 * Contract: never rejects for what the tool or the arguments do: invalid arguments, a throw, a
 * timeout, an abort (before or during `execute`) and a result without content each come back as a `status`. A broken
 * `describeActivity` falls back to the tool name, as in a turn (`describeToolCategory` reports it).
 *
 * @example
 * const call = await runToolCall(readNote, '{"path": "todo.md"}');
 * expect(call.status).toBe('completed');
 * const bad = await runToolCall(readNote, '{"path": 5}');
 * expect(bad.status === 'invalid-arguments' && bad.error).toMatch(/path/);
 */
export async function runToolCall<TParams, TDetails>(
  tool: WorkerAgentTool<TParams, TDetails>,
  rawArguments: string | Record<string, unknown>,
  options: RunToolCallOptions = {},
): Promise<RunToolCallResult<TParams, TDetails>> {
  const raw = typeof rawArguments === 'string' ? rawArguments : JSON.stringify(rawArguments);
  // The loop keeps only a thrown error's message; a test wants the value itself.
  let thrown: unknown = noThrow;
  // Whether `execute` returned a result with content: a `tool-error` end is then the tool's own
  // error result (status `completed`, as a test reads it), else the loop's refusal of the value.
  let returnedResult = false;
  const watched: AnyWorkerAgentTool = {
    ...(tool as AnyWorkerAgentTool),
    execute: async (params, context) => {
      try {
        const value = await tool.execute(params as TParams, context);
        returnedResult = hasContent(value);
        return value;
      } catch (error) {
        thrown = error;
        throw error;
      }
    },
  };
  const { start, progress, end } = await runToolCallOnce(watched, raw, {
    callId: options.toolCallId ?? 'call_test',
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.finishReason === undefined ? {} : { finishReason: options.finishReason }),
    ...(options.timeoutMs === undefined ? {} : { toolTimeoutMs: options.timeoutMs }),
    ...(options.maxResultBytes === undefined ? {} : { maxToolResultBytes: options.maxResultBytes }),
    ...(options.abandonGraceMs === undefined ? {} : { abandonGraceMs: options.abandonGraceMs }),
  });
  const output = typeof end.result.content === 'string' ? end.result.content : '';
  if (start === undefined) {
    if (end.outcome === 'invalid-arguments') return { status: 'invalid-arguments', error: output, output };
    return { status: 'not-run', output };
  }
  const ran: RanCall<TParams> = {
    params: start.params as TParams,
    repairs: start.repairs,
    activity: start.activity,
    progress,
  };
  switch (end.outcome) {
    case 'completed':
    case 'tool-error':
      if (end.outcome === 'tool-error' && (thrown !== noThrow || !returnedResult)) {
        return thrown === noThrow
          ? { status: 'invalid-result', ...ran, output }
          : { status: 'threw', ...ran, error: thrown, output };
      }
      return {
        status: 'completed',
        ...ran,
        result: end.result as AgentToolResult<TDetails>,
        completedActivity: end.activity,
      };
    case 'timeout':
    case 'cancelled':
      return { status: end.outcome, ...ran, output };
    default:
      return thrown === noThrow
        ? { status: 'invalid-result', ...ran, output }
        : { status: 'threw', ...ran, error: thrown, output };
  }
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
 * Contract: rejects, naming the tool, when no tool has that name or the call does not end
 * `completed` (the message carries the output the model would read); a tool's own `isError`
 * result is `completed` and is returned.
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
  const outcome = await runToolCall(tool, params);
  if (outcome.status !== 'completed') throw new Error(`${name} ended ${outcome.status}: ${outcome.output}`);
  return outcome.result;
}
