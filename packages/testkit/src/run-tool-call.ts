import {
  type AgentToolResult,
  type ToolProgress,
  validateToolArguments,
  type WorkerAgentTool,
} from '@switchyard/core';
import { createTestToolContext } from './create-test-tool-context';

/** Options of `runToolCall`. */
export interface RunToolCallOptions {
  /** Aborts the call (combined with the context's own controller). */
  signal?: AbortSignal;
  /** The call id `execute` sees (default `call_test`). */
  toolCallId?: string;
  /** The response's finish reason the argument ladder is told, e.g. `max_output_tokens`. */
  finishReason?: string;
}

/** What `runToolCall` returns. */
export type RunToolCallResult<TParams, TDetails> =
  | {
      /** The arguments did not parse or validate; `execute` did not run. */
      status: 'invalid-arguments';
      /** The message the model would read as the call's output. */
      error: string;
    }
  | {
      /** `execute` returned a result (which may itself have `isError`). */
      status: 'completed';
      /** The validated parameters. */
      params: TParams;
      /** Repairs the argument ladder made. */
      repairs: string[];
      /** What `execute` returned. */
      result: AgentToolResult<TDetails>;
      /** The `describeActivity` label. */
      activity: string;
      /** The `describeCompletedActivity` label (the activity label when the tool has none). */
      completedActivity: string;
      /** Progress reported, in order. */
      progress: ToolProgress[];
    }
  | {
      /** `execute` threw (the loop would record `Tool '<name>' failed: <message>`). */
      status: 'threw';
      /** The validated parameters. */
      params: TParams;
      /** Repairs the argument ladder made. */
      repairs: string[];
      /** What it threw. */
      error: unknown;
      /** The `describeActivity` label. */
      activity: string;
      /** Progress reported before it threw. */
      progress: ToolProgress[];
    };

/**
 * Runs one call of a tool the way the loop does, without a model: the argument string (or an
 * object, sent as its JSON) goes through the repair ladder and validation, then `execute` runs with
 * a test context.
 *
 * Contract: invalid arguments and a throwing `execute` come back as `status` values; a throwing
 * `describeActivity`/`describeCompletedActivity` propagates (a defect `describeToolCategory` reports).
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
  const validation = validateToolArguments(
    tool,
    raw,
    options.finishReason === undefined ? undefined : { finishReason: options.finishReason },
  );
  if (!validation.ok) return { status: 'invalid-arguments', error: validation.error.message };
  const { params, repairs } = validation;
  const activity = tool.describeActivity(params);
  const context = createTestToolContext({
    ...(options.toolCallId === undefined ? {} : { toolCallId: options.toolCallId }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  try {
    const result = await tool.execute(params, context);
    const completedActivity = tool.describeCompletedActivity?.(params, result) ?? activity;
    return {
      status: 'completed',
      params,
      repairs,
      result,
      activity,
      completedActivity,
      progress: context.progress,
    };
  } catch (error) {
    return { status: 'threw', params, repairs, error, activity, progress: context.progress };
  }
}
