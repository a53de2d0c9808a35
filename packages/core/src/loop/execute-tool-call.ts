import type { ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import type { ArgumentRefusalReason, ArgumentRepair } from '../arguments/argument-ids';
import { validateToolArguments } from '../arguments/validate-tool-arguments';
import type { AgentEvent, ToolCallOutcome } from '../events/agent-event';
import { raceAbort } from '../shared/race-abort';
import { toolKey } from '../tool/agent-tool-map';
import type {
  AgentToolResult,
  AnyWorkerAgentTool,
  ToolProgress,
  ToolResultContentPart,
} from '../tool/worker-agent-tool';
import { CallSignal } from './call-signal';
import { capToolResult } from './cap-tool-result';

/** What `beforeToolCall` is told about a call: validated and about to run. */
export interface ToolCallRequest {
  /** The function call's `call_id`, as the endpoint sent it (unique within its response). */
  callId: string;
  /**
   * Where the call's `function_call` item sits in `transcript()`: unique within the turn, even when
   * an endpoint repeats a `call_id` in a later response, and the same when the turn is continued from
   * a stored transcript. Key anything held per call (an approval) by it, not by `callId` alone.
   */
  itemIndex: number;
  /** Tool name as called. */
  name: string;
  /** Tool namespace, if any. */
  namespace?: string;
  /** The validated parameters `execute` would receive. */
  params: unknown;
  /** The raw argument string the model sent. */
  rawArguments: string;
  /** Repairs the argument ladder made. */
  repairs: ArgumentRepair[];
  /**
   * The turn's transcript as a later request would continue from it, taken when called: the input,
   * every response's items (this call's response included, so its function calls are there) and the
   * outputs recorded so far, those of this response's calls that have already finished included. A
   * hook that holds the call (an approval) can store it and, when the process running the turn is
   * gone, continue the turn with `runAgentLoop({ input: transcript })`: the calls without an output
   * are dispatched first.
   */
  transcript(): ResponseInputItem[];
}

/** `beforeToolCall`'s answer: run the call, or record `reason` as its output instead. */
export type ToolCallDecision = { allow: true } | { allow: false; reason: string };

/**
 * A policy hook run after validation, before `execute` (approvals plug in here). The tool carries
 * `isReadOnly`, `isDestructive` and `executionMode`.
 *
 * Contract: anything but `{ allow: true }` denies, and so does a hook that throws (its message
 * becomes the reason); a denial is the call's `isError` output.
 */
export type BeforeToolCall = (
  call: ToolCallRequest,
  tool: AnyWorkerAgentTool,
) => ToolCallDecision | Promise<ToolCallDecision>;

/** A function call of the turn, with where its item sits in the transcript (`ToolCallRequest.itemIndex`). */
export interface TurnToolCall {
  /** The function call as the model sent it. */
  call: ResponseFunctionToolCall;
  /** Index of its `function_call` item in the turn's transcript. */
  itemIndex: number;
}

/** One call's recorded output, plus what the loop needs to know about it. */
export interface ToolCallRecord {
  /** The `function_call_output` item appended to the transcript. */
  output: ResponseInputItem.FunctionCallOutput;
  /** The result asked to end the turn. */
  endsTurn: boolean;
  /** The completed result's `loadsTools` (empty for any other outcome): the loop loads them. */
  loadsTools: readonly string[];
}

/** The per-turn state `executeToolCall` works with. */
export interface ToolCallScope {
  /** The turn's tools by `toolKey`. */
  tools: ReadonlyMap<string, AnyWorkerAgentTool>;
  /** The turn's signal (never aborts when the turn has none). */
  signal: AbortSignal;
  /** Per-call timeout, when set. */
  toolTimeoutMs: number | undefined;
  /**
   * How long a call whose signal fired (timeout or abort) is waited for before it is reported
   * abandoned, in milliseconds.
   */
  abandonGraceMs: number;
  /** The policy hook, when set. */
  beforeToolCall: BeforeToolCall | undefined;
  /** Told when the ladder or the schema refuses a call's arguments (telemetry counts refusals). */
  onArgumentsRefused?(call: ResponseFunctionToolCall, reason: ArgumentRefusalReason): void;
  /** Most UTF-8 bytes of text a result's content may have; the rest is cut from the middle. */
  maxToolResultBytes: number;
  /** Emits an event. */
  emit(event: AgentEvent): void;
  /** Receives each call's output item as it is made, before its `tool-call-end` is emitted. */
  recordOutput(call: TurnToolCall, output: ResponseInputItem.FunctionCallOutput): void;
  /** The transcript a held call's hook may store (see `ToolCallRequest.transcript`). */
  transcript(): ResponseInputItem[];
}

/** What `finish` needs of the scope. */
type FinishScope = Pick<ToolCallScope, 'emit' | 'recordOutput' | 'maxToolResultBytes'>;

function toOutput(content: AgentToolResult['content']): ResponseInputItem.FunctionCallOutput['output'] {
  if (typeof content === 'string') return content;
  return content.map((part: ToolResultContentPart) =>
    part.type === 'text'
      ? { type: 'input_text' as const, text: part.text }
      : {
          type: 'input_image' as const,
          image_url: `data:${part.mimeType};base64,${part.data}`,
          detail: 'auto' as const,
        },
  );
}

function label(describe: () => string, fallback: string): string {
  try {
    const text = describe();
    return typeof text === 'string' && text !== '' ? text : fallback;
  } catch {
    return fallback;
  }
}

function isResult(value: unknown): value is AgentToolResult {
  if (typeof value !== 'object' || value === null) return false;
  const { content } = value as { content?: unknown };
  return typeof content === 'string' || Array.isArray(content);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Resolves `true` once `execution` settles, or `false` when `ms` pass first. Never rejects: the
 * settlement itself is the tool's to report, and has already been reported as a timeout or abort.
 */
function settlesWithin(execution: unknown, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settled = () => {
      clearTimeout(timer);
      resolve(true);
    };
    Promise.resolve(execution).then(settled, settled);
  });
}

/** The output given to a call that was never run. */
export function unrunToolCall(
  call: TurnToolCall,
  outcome: 'cancelled' | 'skipped',
  scope: FinishScope,
): ToolCallRecord {
  const content =
    outcome === 'cancelled'
      ? 'cancelled: the turn was aborted before this call ran'
      : 'skipped: an earlier call of this response ended the turn';
  return finish({ call, scope, outcome, result: { content, isError: true } });
}

/**
 * The output given to each call of a response whose `call_id` another call of that response has
 * too: outputs are matched to calls by id, so neither could be told apart from the other, and none
 * of them runs (an approval or a result meant for one must never reach the other).
 */
export function refuseDuplicateCallId(
  call: TurnToolCall,
  sharedBy: number,
  scope: FinishScope,
): ToolCallRecord {
  const content =
    `Not run: ${sharedBy} calls of your last response had the same call id ${JSON.stringify(call.call.call_id)}, ` +
    'so their results could not be told apart and none of them ran. Make each call again.';
  return finish({ call, scope, outcome: 'duplicate-call-id', result: { content, isError: true } });
}

/** `details` with one more entry, whatever shape the tool gave it (logs read both). */
function withDetail(details: unknown, key: string, value: unknown): unknown {
  if (typeof details === 'object' && details !== null && !Array.isArray(details)) {
    return { ...details, [key]: value };
  }
  return details === undefined ? { [key]: value } : { value: details, [key]: value };
}

/** What a call ended with, for `finish`: only `call`, `scope`, `outcome` and `result` are required. */
interface FinishArguments {
  /** The function call being answered. */
  call: TurnToolCall;
  /** Where the output is recorded and the event emitted. */
  scope: FinishScope;
  /** How the call ended (`completed` becomes `tool-error` for an `isError` result). */
  outcome: ToolCallOutcome;
  /** The result before the size cap. */
  result: AgentToolResult;
  /** The activity label for the event; the call's name when absent. */
  activity?: string;
  /** Repairs the argument ladder made; none when absent. */
  repairs?: ArgumentRepair[];
  /** How long `execute` ran; 0 when it never ran. */
  durationMs?: number;
  /** The call was abandoned after its signal fired. */
  abandoned?: boolean;
}

function finish({
  call: turnCall,
  scope,
  outcome,
  result: uncapped,
  activity,
  repairs = [],
  durationMs = 0,
  abandoned = false,
}: FinishArguments): ToolCallRecord {
  // Every output passes here, tool results and the loop's own messages alike (a thrown error's
  // message can be megabytes too), so this is the one place the cap is applied.
  const { result: capped, cut } = capToolResult(uncapped, scope.maxToolResultBytes);
  const result =
    cut === undefined ? capped : { ...capped, details: withDetail(capped.details, 'resultCut', cut) };
  const isError = result.isError === true;
  // `completed` here means `execute` returned (its flags count, as they always did); the event says
  // whether the returned result was a failure, so `outcome` alone tells success from failure.
  const endsTurn = outcome === 'completed' && result.endsTurn === true;
  const ended: ToolCallOutcome = outcome === 'completed' && isError ? 'tool-error' : outcome;
  const loadsTools =
    outcome === 'completed' && Array.isArray(result.loadsTools)
      ? result.loadsTools.filter((key): key is string => typeof key === 'string')
      : [];
  const { call, itemIndex } = turnCall;
  const output: ResponseInputItem.FunctionCallOutput = {
    type: 'function_call_output',
    call_id: call.call_id,
    output: toOutput(result.content),
  };
  // Recorded before the event: whoever reacts to `tool-call-end` finds it in `transcript()`.
  scope.recordOutput(turnCall, output);
  scope.emit({
    type: 'tool-call-end',
    callId: call.call_id,
    itemIndex,
    name: call.name,
    ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
    outcome: ended,
    activity: activity ?? call.name,
    durationMs,
    isError,
    repairs,
    result,
    ...(cut === undefined ? {} : { resultCut: cut }),
    endsTurn,
    ...(abandoned ? { abandoned: true } : {}),
  });
  return { output, endsTurn, loadsTools };
}

/**
 * Runs one function call to its output: lookup by `(namespace, name)`, argument validation (with
 * the response's finish reason), the `beforeToolCall` policy, then `execute` under the turn's
 * signal and the per-call timeout.
 *
 * Contract: never rejects. An unknown tool, invalid arguments, a denial, a thrown error, a timeout
 * or an abort each become an `isError` output the model can act on, with a `tool-call-end` event.
 * The event's `outcome` is `completed` only for a result without `isError`; a tool's own error
 * result ends `tool-error`, like a throw.
 * On a timeout or an abort it resolves only once `execute` has settled, or once
 * `scope.abandonGraceMs` have passed since the signal fired: then the output says the call was
 * abandoned and may still be running, and the event carries `abandoned: true`. So a sequential
 * call never starts while an earlier one still runs, unless that one was reported abandoned.
 * Every output's text is capped at `scope.maxToolResultBytes` (head and tail kept, `resultCut` on
 * the event and in `details` when anything was cut).
 */
export async function executeToolCall(
  turnCall: TurnToolCall,
  finishReason: string | undefined,
  scope: ToolCallScope,
): Promise<ToolCallRecord> {
  const { call, itemIndex } = turnCall;
  if (scope.signal.aborted) return unrunToolCall(turnCall, 'cancelled', scope);
  const key = toolKey(call);
  const tool = scope.tools.get(key);
  if (tool === undefined) {
    const known = [...scope.tools.keys()];
    const list = known.length > 40 ? `${known.slice(0, 40).join(', ')}, ...` : known.join(', ');
    const content = `Unknown tool '${key}'. Call one of the available tools${list === '' ? '' : `: ${list}`}.`;
    return finish({ call: turnCall, scope, outcome: 'unknown-tool', result: { content, isError: true } });
  }
  const validation = validateToolArguments(
    tool,
    call.arguments,
    finishReason === undefined ? undefined : { finishReason },
  );
  if (!validation.ok) {
    scope.onArgumentsRefused?.(call, validation.error.reason);
    return finish({
      call: turnCall,
      scope,
      outcome: 'invalid-arguments',
      result: { content: validation.error.message, isError: true },
    });
  }
  const { params, repairs } = validation;
  if (scope.beforeToolCall !== undefined) {
    let decision: ToolCallDecision;
    try {
      decision = await scope.beforeToolCall(
        {
          callId: call.call_id,
          itemIndex,
          name: call.name,
          ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
          params,
          rawArguments: call.arguments,
          repairs,
          transcript: scope.transcript,
        },
        tool,
      );
    } catch (error) {
      decision = { allow: false, reason: `the approval check failed: ${errorMessage(error)}` };
    }
    // Fail closed: anything but an explicit allow (a missing answer included) denies.
    if (decision?.allow !== true) {
      const reason = (decision as { reason?: unknown } | undefined)?.reason;
      const content = `Tool call denied: ${typeof reason === 'string' && reason !== '' ? reason : 'no reason given'}`;
      return finish({
        call: turnCall,
        scope,
        outcome: 'denied',
        result: { content, isError: true },
        repairs,
      });
    }
    if (scope.signal.aborted) return unrunToolCall(turnCall, 'cancelled', scope);
  }

  const activity = label(() => tool.describeActivity(params), tool.name);
  const { emit } = scope;
  emit({
    type: 'tool-call-start',
    callId: call.call_id,
    itemIndex,
    name: call.name,
    ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
    activity,
    params,
    repairs,
    isReadOnly: tool.isReadOnly,
    isDestructive: tool.isDestructive,
  });
  const started = performance.now();
  const timeoutMs = scope.toolTimeoutMs;
  const callSignal = new CallSignal(
    scope.signal,
    timeoutMs,
    `Tool '${tool.name}' timed out after ${timeoutMs} ms`,
  );
  const { signal } = callSignal;
  const context = {
    signal,
    toolCallId: call.call_id,
    maxResultBytes: scope.maxToolResultBytes,
    reportProgress: (progress: ToolProgress) => {
      try {
        emit({ type: 'tool-call-progress', callId: call.call_id, itemIndex, name: call.name, progress });
      } catch {
        // Progress reporting never throws into the tool.
      }
    },
  };
  let result: AgentToolResult;
  let outcome: ToolCallOutcome = 'completed';
  let execution: unknown;
  let abandoned = false;
  try {
    execution = tool.execute(params, context);
    const value = await raceAbort(execution as Promise<unknown>, signal);
    if (isResult(value)) result = value;
    else {
      outcome = 'tool-error';
      result = {
        content: `Tool '${tool.name}' failed: execute returned no result with content`,
        isError: true,
      };
    }
  } catch (error) {
    // A tool that ignores its signal is still running: hold the barrier (the next sequential call,
    // the end of an aborted turn) until it settles, but not past the grace.
    if (signal.aborted && execution !== undefined) {
      abandoned = !(await settlesWithin(execution, scope.abandonGraceMs));
    }
    const abandonedNote = abandoned
      ? `; it did not stop within ${scope.abandonGraceMs} ms of being told to and was abandoned, so it may still be running: check its effect before calling it again`
      : '';
    if (scope.signal.aborted) {
      outcome = 'cancelled';
      result = {
        content: `cancelled: the turn was aborted while this call ran${abandonedNote}`,
        isError: true,
      };
    } else if (signal.aborted) {
      outcome = 'timeout';
      result = {
        content: `Tool '${tool.name}' timed out after ${timeoutMs} ms${abandonedNote}`,
        isError: true,
      };
    } else {
      outcome = 'tool-error';
      result = { content: `Tool '${tool.name}' failed: ${errorMessage(error)}`, isError: true };
    }
  } finally {
    callSignal.dispose();
  }
  const completed =
    outcome === 'completed' && tool.describeCompletedActivity !== undefined
      ? label(() => tool.describeCompletedActivity?.(params, result) ?? activity, activity)
      : activity;
  if (outcome === 'completed' && repairs.length > 0) {
    // The repair note travels in `details` so logs show what the model actually sent.
    result = { ...result, details: withDetail(result.details, 'argumentRepairs', repairs) };
  }
  return finish({
    call: turnCall,
    scope,
    outcome,
    result,
    activity: completed,
    repairs,
    durationMs: performance.now() - started,
    abandoned,
  });
}
