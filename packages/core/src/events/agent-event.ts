import type { ArgumentRefusalReason, ArgumentRepair } from '../arguments/argument-ids';
import type { ToolResultCut } from '../loop/cap-tool-result';
import type { ToolSearchMode } from '../schema/collect-tool-schemas';
import type { AgentToolResult, ToolProgress } from '../tool/worker-agent-tool';

/** Token usage summed over a turn's model requests. */
export interface AgentUsage {
  /** Input tokens. */
  inputTokens: number;
  /** Of `inputTokens`, how many were served from the provider's prompt cache. */
  cachedInputTokens: number;
  /** Output tokens. */
  outputTokens: number;
  /** Of `outputTokens`, how many were reasoning tokens. */
  reasoningTokens: number;
  /** Input plus output tokens. */
  totalTokens: number;
}

/**
 * How a turn ended. `incomplete`: the last response (the one without function calls) came back
 * `incomplete` (`max_output_tokens`, `content_filter`), so its text is cut off; the reason is in
 * `incompleteReason`. `budget-exceeded`: the turn's `budget` refused its next model request (the
 * reason is its `error`); the last response's output is kept.
 */
export type AgentRunStatus =
  | 'completed'
  | 'incomplete'
  | 'ended-by-tool'
  | 'aborted'
  | 'max-iterations'
  | 'budget-exceeded'
  | 'failed';

/**
 * How one tool call ended, in one field: `completed` is the only success, and a call's `isError` is
 * always `outcome !== 'completed'`.
 *
 * - `completed`: `execute` returned a result without `isError`.
 * - `tool-error`: the tool failed: `execute` returned an `isError` result, threw, or returned no
 *   result with `content`.
 * - `invalid-arguments`: the argument ladder or the schema refused the arguments; nothing ran.
 * - `denied`: `beforeToolCall` refused the call (or threw, or gave no answer); nothing ran.
 * - `timeout`: the per-call timeout fired while `execute` ran.
 * - `cancelled`: the turn was aborted before or while the call ran.
 * - `unknown-tool`: no tool of the turn has that (namespace, name).
 * - `skipped`: an earlier call of the same response ended the turn; nothing ran.
 * - `duplicate-call-id`: another call of the same response has the same `call_id` (an endpoint or a
 *   gateway numbered them so), so no output could be told apart from the other's; none of them ran.
 * - `in-doubt`: an earlier attempt of the turn started the call and stopped before recording its
 *   output, so whether it took effect is unknown; it was not run again.
 *
 * Event logs recorded before this set existed may hold `completed` with `isError: true` (a tool's
 * error result) or `error` (execute threw): both read as `tool-error`.
 */
export type ToolCallOutcome = (typeof TOOL_CALL_OUTCOMES)[number];

/** Every `ToolCallOutcome`, `completed` first: for validation schemas and exhaustive handling. */
export const TOOL_CALL_OUTCOMES = [
  'completed',
  'tool-error',
  'invalid-arguments',
  'denied',
  'timeout',
  'cancelled',
  'unknown-tool',
  'skipped',
  'duplicate-call-id',
  'in-doubt',
] as const;

/** The turn started. */
export interface TurnStartEvent {
  /** Discriminator. */
  type: 'turn-start';
  /** Tools in the turn's tool set (including deferred ones). */
  toolCount: number;
  /** How deferred tools are offered this turn. */
  toolSearch: ToolSearchMode;
}

/** A model request is about to be sent. */
export interface ModelRequestStartEvent {
  /** Discriminator. */
  type: 'model-request-start';
  /** 1-based iteration (model request) number. */
  iteration: number;
  /** Entries in the request's `tools` array (a namespace counts once). */
  toolCount: number;
  /**
   * Present (`true`) when the turn's journal already held this step's response (a resumed turn): it
   * is replayed from there, and no request is sent.
   */
  replayed?: true;
}

/** A piece of the model's output text, as it streams. */
export interface TextDeltaEvent {
  /** Discriminator. */
  type: 'text-delta';
  /** 1-based iteration number. */
  iteration: number;
  /** The new text. */
  delta: string;
}

/** A model response arrived in full. */
export interface ModelRequestEndEvent {
  /** Discriminator. */
  type: 'model-request-end';
  /** 1-based iteration number. */
  iteration: number;
  /** The response's id. */
  responseId: string;
  /** This response's usage (the turn's running total is in `run.result()`). */
  usage: AgentUsage;
  /** Function calls the response asked for. */
  functionCallCount: number;
  /** `incomplete_details.reason` when the response is incomplete, e.g. `max_output_tokens`. */
  finishReason?: string;
  /** Present (`true`) when the response came from the turn's journal, not from a request. */
  replayed?: true;
}

/** A validated, allowed tool call is starting. */
export interface ToolCallStartEvent {
  /** Discriminator. */
  type: 'tool-call-start';
  /** The function call's `call_id`. */
  callId: string;
  /**
   * Where the call's `function_call` item sits in the turn's transcript (`items`): unique within the
   * turn even when an endpoint repeats a `call_id` in a later response, and the same when the turn is
   * continued from a stored transcript.
   */
  itemIndex: number;
  /** Tool name as called. */
  name: string;
  /** Tool namespace, if any. */
  namespace?: string;
  /** The tool's `describeActivity` label, e.g. "Reading notes/todo.md". */
  activity: string;
  /** The validated parameters. */
  params: unknown;
  /** Repairs the argument ladder made (empty when none). */
  repairs: ArgumentRepair[];
  /** The tool only reads (its `isReadOnly`). */
  isReadOnly: boolean;
  /** The tool may change or delete something (its `isDestructive`): progress views mark such calls. */
  isDestructive: boolean;
}

/** A running tool reported progress. */
export interface ToolCallProgressEvent {
  /** Discriminator. */
  type: 'tool-call-progress';
  /** The function call's `call_id`. */
  callId: string;
  /**
   * Where the call's `function_call` item sits in the turn's transcript (`items`): unique within the
   * turn even when an endpoint repeats a `call_id` in a later response, and the same when the turn is
   * continued from a stored transcript.
   */
  itemIndex: number;
  /** Tool name as called. */
  name: string;
  /** What the tool reported. */
  progress: ToolProgress;
}

/**
 * A tool call has its output. Emitted for every function call, including those that never
 * started (unknown tool, invalid arguments, denied, cancelled, skipped): those have no
 * `tool-call-start` before them.
 */
export interface ToolCallEndEvent {
  /** Discriminator. */
  type: 'tool-call-end';
  /** The function call's `call_id`. */
  callId: string;
  /**
   * Where the call's `function_call` item sits in the turn's transcript (`items`): unique within the
   * turn even when an endpoint repeats a `call_id` in a later response, and the same when the turn is
   * continued from a stored transcript.
   */
  itemIndex: number;
  /** Tool name as called. */
  name: string;
  /** Tool namespace, if any. */
  namespace?: string;
  /** How the call ended: `completed` is the only success (see `ToolCallOutcome`). */
  outcome: ToolCallOutcome;
  /** The `describeCompletedActivity` label, else the activity label, else the tool name. */
  activity: string;
  /** Milliseconds from start to output (0 for calls that never started). */
  durationMs: number;
  /** The output is an error the model should act on: always `outcome !== 'completed'`. */
  isError: boolean;
  /** Repairs the argument ladder made (empty when none). */
  repairs: ArgumentRepair[];
  /**
   * With outcome `invalid-arguments`: why the arguments were refused, the `ToolArgumentsError.reason`
   * (a ladder step's id such as `invalid-json` or `truncated`, or `invalid-arguments` when the schema
   * refused them). Absent for every other outcome.
   */
  refusal?: ArgumentRefusalReason;
  /**
   * Present when `beforeToolCall` was asked about the call: what it answered (`deny` also when it
   * threw or gave no answer) and how long the call waited for it, in milliseconds (an approval's
   * wait). A call allowed and then cancelled before it started carries `allow`.
   */
  approval?: { decision: 'allow' | 'deny'; waitMs: number };
  /**
   * The result recorded as the call's output, as the model sees it (for failures, the error text as
   * `content`; cut to `maxToolResultBytes`, with `details.resultCut`, when it was longer).
   */
  result: AgentToolResult;
  /** Set when the result's text was longer than `maxToolResultBytes` and cut from the middle. */
  resultCut?: ToolResultCut;
  /** Present when the call completed without `isError` and its result sets `completesActorEvent`. */
  completesActorEvent?: true;
  /** The result ends the turn after this batch. */
  endsTurn: boolean;
  /**
   * Present (`true`) when the call timed out or was aborted and `execute` had not settled when
   * `abandonGraceMs` ran out: the loop stopped waiting for it, and it may still be running.
   */
  abandoned?: true;
  /**
   * Present (`true`) when the output came from the turn's journal (a resumed turn reuses what an
   * earlier attempt recorded): nothing ran.
   */
  replayed?: true;
  /**
   * Present (`true`) when an earlier attempt had started the call and stopped before recording its
   * output, so its effect is unknown. A read-only or idempotent tool runs again; any other call is
   * not run again (outcome `in-doubt`) unless `beforeToolCall` allowed it.
   */
  inDoubt?: true;
}

/** The turn ended. Always the last event. */
export interface TurnEndEvent {
  /** Discriminator. */
  type: 'turn-end';
  /** How it ended. */
  status: AgentRunStatus;
  /** Model requests made. */
  iterations: number;
  /** Usage summed over the turn. */
  usage: AgentUsage;
  /** With status `incomplete`: the last response's `incomplete_details.reason`. */
  incompleteReason?: string;
  /** Why the turn failed or was aborted. */
  error?: Error;
}

/** Everything a run yields, in order. */
export type AgentEvent =
  | TurnStartEvent
  | ModelRequestStartEvent
  | TextDeltaEvent
  | ModelRequestEndEvent
  | ToolCallStartEvent
  | ToolCallProgressEvent
  | ToolCallEndEvent
  | TurnEndEvent;

/** Every event `type`, e.g. for exhaustive handling. */
export const AGENT_EVENT_TYPES = [
  'turn-start',
  'model-request-start',
  'text-delta',
  'model-request-end',
  'tool-call-start',
  'tool-call-progress',
  'tool-call-end',
  'turn-end',
] as const satisfies readonly AgentEvent['type'][];
