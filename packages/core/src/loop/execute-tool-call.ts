import type { ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import type { ArgumentRepair } from '../arguments/argument-ids';
import { validateToolArguments } from '../arguments/validate-tool-arguments';
import type { AgentEvent, ToolCallEndEvent, ToolCallOutcome } from '../events/agent-event';
import { raceAbort } from '../shared/race-abort';
import type { AgentToolResult, AnyWorkerAgentTool, ToolProgress } from '../tool/worker-agent-tool';
import type { ToolLookup } from '../tool-search/turn-tool-set';
import type { CallLimits } from './call-limits';
import { CallSignal } from './call-signal';
import { finishToolCall, unrunToolCall } from './finish-tool-call';

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
   * Present (`true`) when an earlier attempt of the turn (its journal says) started this call and
   * stopped before recording its output, so whether it took effect is unknown. For a tool neither
   * read-only nor idempotent, allowing it runs it again; denying it gives it the `in-doubt` outcome.
   */
  inDoubt?: true;
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
  /** Its dispatch key, `toolKey(call)`: worked out once per call. */
  key: string;
}

/** One call's recorded output, plus what the loop needs to know about it. */
export interface ToolCallRecord {
  /** The `function_call_output` item appended to the transcript. */
  output: ResponseInputItem.FunctionCallOutput;
  /** The call's `tool-call-end` event, as emitted. */
  end: ToolCallEndEvent;
  /** The result asked to end the turn. */
  endsTurn: boolean;
  /** The completed result's `loadsTools` (empty for any other outcome): the loop loads them. */
  loadsTools: readonly string[];
}

/** The per-turn state `executeToolCall` works with: the tools, the limits, and where outputs go. */
export interface ToolCallScope extends CallLimits {
  /** The turn's tools by `toolKey`. */
  tools: ToolLookup;
  /** The turn's signal (never aborts when the turn has none). */
  signal: AbortSignal;
  /** The policy hook, when set. */
  beforeToolCall: BeforeToolCall | undefined;
  /** Emits an event. */
  emit(event: AgentEvent): void;
  /** Receives each call's output item as it is made, before its `tool-call-end` is emitted. */
  recordOutput(call: TurnToolCall, output: ResponseInputItem.FunctionCallOutput): void;
  /** The transcript a held call's hook may store (see `ToolCallRequest.transcript`). */
  transcript(): ResponseInputItem[];
  /** The call's `context.idempotencyKey`: the same on every attempt of the turn. */
  idempotencyKey(call: TurnToolCall): string;
  /**
   * Runs right before `execute` (the journal records the call as started); when it rejects, the call
   * does not run and gets a `cancelled` output saying why (the loop ends the turn).
   */
  beforeExecute?(call: TurnToolCall): Promise<void>;
}

type Approval = NonNullable<ToolCallEndEvent['approval']>;

/**
 * Runs one function call to its output, in named steps: look it up, validate its arguments (with the
 * response's finish reason), decide (`beforeToolCall`), run `execute` under the call's signal, and
 * finish (`finishToolCall`: the cap, the recorded output, `tool-call-end`).
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
  inDoubt = false,
): Promise<ToolCallRecord> {
  if (scope.signal.aborted) return unrunToolCall(turnCall, 'cancelled', scope);
  // 1. Look up.
  const tool = scope.tools.get(turnCall.key);
  if (tool === undefined) return refuseUnknownTool(turnCall, scope);
  // 2. Validate: the argument ladder, then the tool's schema.
  const validation = validateToolArguments(
    tool,
    turnCall.call.arguments,
    finishReason === undefined ? undefined : { finishReason },
  );
  if (!validation.ok) {
    const { message, reason } = validation.error;
    const result = { content: message, isError: true };
    return finishToolCall({ call: turnCall, scope, outcome: 'invalid-arguments', result, refusal: reason });
  }
  const { params, repairs } = validation;
  // A call whose earlier start left no output runs again only where that cannot repeat an effect,
  // or where the policy hook (an operator) allows it.
  const rerunnable = !inDoubt || tool.isReadOnly || tool.idempotent === true;
  // 3. Decide.
  let approval: Approval | undefined;
  if (scope.beforeToolCall !== undefined) {
    const decided = await decide(turnCall, tool, params, repairs, scope, inDoubt);
    approval = decided.approval;
    if (decided.denial !== undefined) {
      // A call in doubt the hook did not let run again: the model reads why its effect is unknown.
      const content = rerunnable ? decided.denial : `${IN_DOUBT_MESSAGE} (${decided.denial})`;
      const result = { content, isError: true };
      const outcome = rerunnable ? 'denied' : 'in-doubt';
      return finishToolCall({ call: turnCall, scope, outcome, result, repairs, approval, inDoubt });
    }
    if (scope.signal.aborted) return unrunToolCall(turnCall, 'cancelled', scope, approval);
  } else if (!rerunnable) {
    return finishToolCall({
      call: turnCall,
      scope,
      outcome: 'in-doubt',
      result: { content: IN_DOUBT_MESSAGE, isError: true },
      repairs,
      inDoubt,
    });
  }
  // 4. Run, then 5. finish.
  if (scope.beforeExecute !== undefined) {
    try {
      await scope.beforeExecute(turnCall);
    } catch (error) {
      const content = `cancelled: the call was not run because the turn's journal could not record it (${errorMessage(error)})`;
      return finishToolCall({
        call: turnCall,
        scope,
        outcome: 'cancelled',
        result: { content, isError: true },
        approval,
      });
    }
  }
  return runTool(turnCall, tool, params, repairs, approval, scope, inDoubt);
}

/** What the model reads for a call in doubt that was not run again. */
export const IN_DOUBT_MESSAGE =
  'Not run again: the worker running this turn stopped while this call was running, before its result was recorded, so it may or may not have taken effect. Check its effect before calling it again.';

function refuseUnknownTool(turnCall: TurnToolCall, scope: ToolCallScope): ToolCallRecord {
  const known = [...scope.tools.keys()];
  const list = known.length > 40 ? `${known.slice(0, 40).join(', ')}, ...` : known.join(', ');
  const content = `Unknown tool '${turnCall.key}'. Call one of the available tools${list === '' ? '' : `: ${list}`}.`;
  return finishToolCall({
    call: turnCall,
    scope,
    outcome: 'unknown-tool',
    result: { content, isError: true },
  });
}

/** What `decide` found: the approval as `tool-call-end` reports it, and the denial's output if denied. */
interface Decided {
  approval: Approval;
  denial?: string;
}

/**
 * Step 3: asks `beforeToolCall`, timing the wait (an approval's). Fails closed: anything but an
 * explicit allow denies, a missing answer and a throw included.
 */
async function decide(
  { call, itemIndex }: TurnToolCall,
  tool: AnyWorkerAgentTool,
  params: unknown,
  repairs: ArgumentRepair[],
  scope: ToolCallScope,
  inDoubt: boolean,
): Promise<Decided> {
  const hook = scope.beforeToolCall as BeforeToolCall;
  const started = performance.now();
  let decision: ToolCallDecision;
  try {
    decision = await hook(
      {
        callId: call.call_id,
        itemIndex,
        name: call.name,
        ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
        params,
        rawArguments: call.arguments,
        repairs,
        ...(inDoubt ? { inDoubt: true as const } : {}),
        transcript: scope.transcript,
      },
      tool,
    );
  } catch (error) {
    decision = { allow: false, reason: `the approval check failed: ${errorMessage(error)}` };
  }
  const waitMs = performance.now() - started;
  if (decision?.allow === true) return { approval: { decision: 'allow', waitMs } };
  const reason = (decision as { reason?: unknown } | undefined)?.reason;
  return {
    approval: { decision: 'deny', waitMs },
    denial: `Tool call denied: ${typeof reason === 'string' && reason !== '' ? reason : 'no reason given'}`,
  };
}

/** Step 4: `tool-call-start`, `execute` under the call's signal, then the completed label. */
async function runTool(
  turnCall: TurnToolCall,
  tool: AnyWorkerAgentTool,
  params: unknown,
  repairs: ArgumentRepair[],
  approval: Approval | undefined,
  scope: ToolCallScope,
  inDoubt: boolean,
): Promise<ToolCallRecord> {
  const { call, itemIndex } = turnCall;
  const activity = label(() => tool.describeActivity(params), tool.name);
  scope.emit({
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
  const { outcome, result, abandoned } = await executeUnderCallSignal(turnCall, tool, params, scope);
  const completed =
    outcome === 'completed' && tool.describeCompletedActivity !== undefined
      ? label(() => tool.describeCompletedActivity?.(params, result) ?? activity, activity)
      : activity;
  return finishToolCall({
    call: turnCall,
    scope,
    outcome,
    result,
    activity: completed,
    repairs,
    approval,
    durationMs: performance.now() - started,
    abandoned,
    inDoubt,
  });
}

/** What `execute` came to: its result, or the loop's output for a throw, a timeout or an abort. */
interface Execution {
  outcome: ToolCallOutcome;
  result: AgentToolResult;
  abandoned: boolean;
}

/**
 * Runs `execute` under the call's own signal (the turn's abort and the call's time limit). A tool
 * that ignores its signal still holds the barrier (the next sequential call, the end of an aborted
 * turn) until it settles, but not past the grace: then it is abandoned.
 */
async function executeUnderCallSignal(
  turnCall: TurnToolCall,
  tool: AnyWorkerAgentTool,
  params: unknown,
  scope: ToolCallScope,
): Promise<Execution> {
  const { call, itemIndex } = turnCall;
  const { toolTimeoutMs, abandonGraceMs, emit } = scope;
  const callSignal = new CallSignal(
    scope.signal,
    toolTimeoutMs,
    `Tool '${tool.name}' timed out after ${toolTimeoutMs} ms`,
  );
  const { signal } = callSignal;
  const context = {
    signal,
    toolCallId: call.call_id,
    idempotencyKey: scope.idempotencyKey(turnCall),
    maxResultBytes: scope.maxToolResultBytes,
    reportProgress: (progress: ToolProgress) => {
      try {
        emit({ type: 'tool-call-progress', callId: call.call_id, itemIndex, name: call.name, progress });
      } catch {
        // Progress reporting never throws into the tool.
      }
    },
  };
  let execution: unknown;
  try {
    execution = tool.execute(params, context);
    const value = await raceAbort(execution as Promise<unknown>, signal);
    if (isResult(value)) return { outcome: 'completed', result: value, abandoned: false };
    const content = `Tool '${tool.name}' failed: execute returned no result with content`;
    return { outcome: 'tool-error', result: { content, isError: true }, abandoned: false };
  } catch (error) {
    const abandoned =
      signal.aborted && execution !== undefined && !(await settlesWithin(execution, abandonGraceMs));
    const abandonedNote = abandoned
      ? `; it did not stop within ${abandonGraceMs} ms of being told to and was abandoned, so it may still be running: check its effect before calling it again`
      : '';
    if (scope.signal.aborted) {
      const content = `cancelled: the turn was aborted while this call ran${abandonedNote}`;
      return { outcome: 'cancelled', result: { content, isError: true }, abandoned };
    }
    if (signal.aborted) {
      const content = `Tool '${tool.name}' timed out after ${toolTimeoutMs} ms${abandonedNote}`;
      return { outcome: 'timeout', result: { content, isError: true }, abandoned };
    }
    const content = `Tool '${tool.name}' failed: ${errorMessage(error)}`;
    return { outcome: 'tool-error', result: { content, isError: true }, abandoned };
  } finally {
    callSignal.dispose();
  }
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
