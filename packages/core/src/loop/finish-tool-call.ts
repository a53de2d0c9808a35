import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { ArgumentRefusalReason, ArgumentRepair } from '../arguments/argument-ids';
import type { ToolCallEndEvent, ToolCallOutcome } from '../events/agent-event';
import type { AgentToolResult, ToolResultContentPart } from '../tool/worker-agent-tool';
import { capToolResult } from './cap-tool-result';
import type { ToolCallRecord, ToolCallScope, TurnToolCall } from './execute-tool-call';
import type { JournalCallOutput } from './turn-journal';

/** What `finishToolCall` needs of the scope: where the output goes, and its cap. */
export type FinishScope = Pick<ToolCallScope, 'emit' | 'recordOutput' | 'maxToolResultBytes'>;

/** What a call ended with: only `call`, `scope`, `outcome` and `result` are required. */
export interface FinishArguments {
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
  /** Why the arguments were refused (outcome `invalid-arguments`). */
  refusal?: ArgumentRefusalReason;
  /** What `beforeToolCall` answered and how long it took, when it was asked. */
  approval?: ToolCallEndEvent['approval'];
  /** How long `execute` ran; 0 when it never ran. */
  durationMs?: number;
  /** The call was abandoned after its signal fired. */
  abandoned?: boolean;
  /** An earlier attempt of the turn started the call and never recorded its output. */
  inDoubt?: boolean;
}

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

/**
 * The result with each image part that has no data as a text line: the API refuses an empty
 * `input_image` (400), and a stateless transcript would send it again with every later request.
 */
function withoutEmptyImages(result: AgentToolResult): AgentToolResult {
  const { content } = result;
  if (
    typeof content === 'string' ||
    !content.some((part) => part.type === 'image' && part.data.trim() === '')
  ) {
    return result;
  }
  return {
    ...result,
    content: content.map((part) =>
      part.type === 'image' && part.data.trim() === ''
        ? { type: 'text', text: `[image (${part.mimeType.slice(0, 100)}) omitted: it was empty]` }
        : part,
    ),
  };
}

/** `details` with one more entry, whatever shape the tool gave it (logs read both). */
function withDetail(details: unknown, key: string, value: unknown): unknown {
  if (typeof details === 'object' && details !== null && !Array.isArray(details)) {
    return { ...details, [key]: value };
  }
  return details === undefined ? { [key]: value } : { value: details, [key]: value };
}

/**
 * The last step of every call, whatever happened before: the result's repair note, the result cap,
 * the `function_call_output` recorded, then `tool-call-end` emitted with one outcome.
 *
 * Contract: the output is recorded before `tool-call-end` is emitted, so whoever reacts to the event
 * finds it in `transcript()`; the output's text is at most `scope.maxToolResultBytes` (head and tail
 * kept, `resultCut` on the event and in `details` when anything was cut).
 */
export function finishToolCall({
  call: turnCall,
  scope,
  outcome,
  result: uncapped,
  activity,
  repairs = [],
  refusal,
  approval,
  durationMs = 0,
  abandoned = false,
  inDoubt = false,
}: FinishArguments): ToolCallRecord {
  // `completed` here means `execute` returned (its flags count, as they always did); the event says
  // whether the returned result was a failure, so `outcome` alone tells success from failure.
  const returned = outcome === 'completed';
  // The repair note travels in `details` so logs show what the model actually sent.
  const noted =
    returned && repairs.length > 0
      ? { ...uncapped, details: withDetail(uncapped.details, 'argumentRepairs', repairs) }
      : uncapped;
  const sendable = withoutEmptyImages(noted);
  // Every output passes here, tool results and the loop's own messages alike (a thrown error's
  // message can be megabytes too), so this is the one place the cap is applied.
  const { result: capped, cut } = capToolResult(sendable, scope.maxToolResultBytes);
  const result =
    cut === undefined ? capped : { ...capped, details: withDetail(capped.details, 'resultCut', cut) };
  const isError = result.isError === true;
  const endsTurn = returned && result.endsTurn === true;
  const completesActorEvent = returned && !isError && result.completesActorEvent === true;
  const loadsTools =
    returned && Array.isArray(result.loadsTools)
      ? result.loadsTools.filter((key): key is string => typeof key === 'string')
      : [];
  const { call, itemIndex } = turnCall;
  const output: ResponseInputItem.FunctionCallOutput = {
    type: 'function_call_output',
    call_id: call.call_id,
    output: toOutput(result.content),
  };
  scope.recordOutput(turnCall, output);
  const end: ToolCallEndEvent = {
    type: 'tool-call-end',
    callId: call.call_id,
    itemIndex,
    name: call.name,
    ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
    outcome: returned && isError ? 'tool-error' : outcome,
    activity: activity ?? call.name,
    durationMs,
    isError,
    repairs,
    ...(refusal === undefined ? {} : { refusal }),
    ...(approval === undefined ? {} : { approval }),
    result,
    ...(cut === undefined ? {} : { resultCut: cut }),
    ...(completesActorEvent ? { completesActorEvent: true } : {}),
    endsTurn,
    ...(abandoned ? { abandoned: true } : {}),
    ...(inDoubt ? { inDoubt: true } : {}),
  };
  scope.emit(end);
  return { output, end, endsTurn, loadsTools };
}

/**
 * The output an earlier attempt recorded, reused by a resumed turn: recorded in the transcript and
 * `tool-call-end` emitted again (marked `replayed`), and nothing run.
 */
export function reuseRecordedOutput(
  turnCall: TurnToolCall,
  recorded: JournalCallOutput,
  scope: FinishScope,
): ToolCallRecord {
  const { output } = recorded;
  scope.recordOutput(turnCall, output);
  const end: ToolCallEndEvent = {
    ...recorded.end,
    result: { content: fromOutput(output.output), isError: recorded.end.isError },
    replayed: true,
  };
  scope.emit(end);
  return { output, end, endsTurn: recorded.endsTurn, loadsTools: recorded.loadsTools };
}

/** A recorded output's content as a result's: its text, or its parts as the model read them. */
function fromOutput(output: ResponseInputItem.FunctionCallOutput['output']): AgentToolResult['content'] {
  if (typeof output === 'string') return output;
  return output.map((part): ToolResultContentPart => {
    if (part.type === 'input_text') return { type: 'text', text: part.text };
    if (part.type === 'input_image' && typeof part.image_url === 'string') {
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url);
      if (match !== null) return { type: 'image', mimeType: match[1] as string, data: match[2] as string };
    }
    return { type: 'text', text: '[a part of the recorded output]' };
  });
}

/** The output given to a call that was never run: the turn was aborted, or an earlier call ended it. */
export function unrunToolCall(
  call: TurnToolCall,
  outcome: 'cancelled' | 'skipped',
  scope: FinishScope,
  approval?: ToolCallEndEvent['approval'],
): ToolCallRecord {
  const content =
    outcome === 'cancelled'
      ? 'cancelled: the turn was aborted before this call ran'
      : 'skipped: an earlier call of this response ended the turn';
  return finishToolCall({ call, scope, outcome, result: { content, isError: true }, approval });
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
  return finishToolCall({ call, scope, outcome: 'duplicate-call-id', result: { content, isError: true } });
}
