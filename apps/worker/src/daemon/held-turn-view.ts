import type { ApprovalStore, TurnJournalStore } from '@switchyard/control-plane';
import type { AgentUsage, RecordedTurn } from '@switchyard/core';
import { addUsage, ZERO_USAGE } from '@switchyard/core/internal';
import { approvalView } from './daemon-approvals';
import type { DaemonTurnEvent } from './daemon-turn-types';

/** Where a turn held by another process (or let go) has got to, as its journal and approvals say. */
export interface HeldTurnView {
  /** Its recorded model responses' usage, summed. */
  usage: AgentUsage;
  /** Its recorded model responses. */
  iterations: number;
  /**
   * Its events so far, rebuilt from its journal: each recorded response (`model-request-end`) with
   * its text, the recorded outputs of its calls (`tool-call-end`), then each pending approval
   * (`approval-requested`). Empty unless asked for (`events: true`).
   */
  events: DaemonTurnEvent[];
}

/** The text of a recorded response's messages, as the loop streamed it. */
function textOf(items: RecordedTurn['responses'][number]['items']): string {
  let text = '';
  for (const item of items) {
    if (item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) if (part.type === 'output_text') text += part.text;
  }
  return text;
}

/** The events of a recorded turn: each response, then the outputs of the calls it asked for. */
function eventsOf(recorded: RecordedTurn): DaemonTurnEvent[] {
  const events: DaemonTurnEvent[] = [];
  const outputs = [...recorded.outputs];
  for (const response of recorded.responses) {
    const text = textOf(response.items);
    if (text !== '') events.push({ type: 'text-delta', iteration: response.iteration, delta: text });
    const calls = response.items.flatMap((item) => (item.type === 'function_call' ? [item.call_id] : []));
    events.push({
      type: 'model-request-end',
      iteration: response.iteration,
      responseId: response.id,
      usage: response.usage,
      functionCallCount: calls.length,
      ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
    });
    for (const callId of calls) {
      const at = outputs.findIndex((output) => output.callId === callId);
      if (at === -1) continue;
      const [output] = outputs.splice(at, 1);
      if (output === undefined) continue;
      const content = output.output.output;
      events.push({
        ...output.end,
        result: {
          content: typeof content === 'string' ? content : JSON.stringify(content),
          isError: output.end.isError,
        },
      });
    }
  }
  return events;
}

/**
 * What a turn waiting for approval in another process (or let go) has done so far, from its journal
 * (its steps) and, with `events`, its pending approvals: the held call's checkpoint no longer
 * carries it.
 */
export async function heldTurnView(options: {
  journals: Pick<TurnJournalStore, 'read'>;
  approvals: Pick<ApprovalStore, 'list'> | undefined;
  turnId: string;
  events: boolean;
}): Promise<HeldTurnView> {
  const [recorded, approvals] = await Promise.all([
    options.journals.read(options.turnId),
    options.events ? (options.approvals?.list({ turnId: options.turnId, status: 'pending' }) ?? []) : [],
  ]);
  const usage = recorded.responses.reduce((sum, response) => addUsage(sum, response.usage), ZERO_USAGE);
  const events = options.events ? eventsOf(recorded) : [];
  // Oldest first, as they were requested (the list is newest first).
  for (const approval of [...approvals].reverse()) {
    events.push({ type: 'approval-requested', approval: approvalView(approval), at: approval.createdAt });
  }
  return { usage, iterations: recorded.responses.length, events };
}
