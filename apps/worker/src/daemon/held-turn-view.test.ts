import { type JournalCallOutput, ZERO_USAGE } from '@switchyard/core/internal';
import { describe, expect, it } from 'vitest';
import { testControlPlaneForSuite } from '../__fixtures__/test-control-plane';
import { requestWriteApproval } from './__fixtures__/held-call';
import { heldTurnView } from './held-turn-view';

// What a turn held by another process shows, from its journal and approvals on a real control plane
// (PGlite): the checkpoint stored with its held call carries none of it.

const bed = testControlPlaneForSuite();
const WORKER = 'worker_holding';

/** The recorded output of the `read_file` call `call_read` at item 2. */
const readOutput: JournalCallOutput = {
  itemIndex: 2,
  callId: 'call_read',
  output: { type: 'function_call_output', call_id: 'call_read', output: 'hello' },
  end: {
    type: 'tool-call-end',
    callId: 'call_read',
    itemIndex: 2,
    name: 'read_file',
    outcome: 'completed',
    activity: 'Reading a',
    durationMs: 3,
    isError: false,
    repairs: [],
    endsTurn: false,
  },
  endsTurn: false,
  loadsTools: [],
};

describe('the view of a turn held elsewhere (PGlite)', () => {
  it('sums its recorded usage and rebuilds its steps and pending approval as events', async () => {
    const turnId = 'turn_held_view_1';
    const { controlPlane } = bed;
    await controlPlane.turns.recordStart({
      id: turnId,
      agentId: 'ada',
      source: 'api',
      prompt: 'go',
      workerId: WORKER,
    });
    const { journal } = await controlPlane.journals.open({ turnId, workerId: WORKER, fresh: true });
    await journal.response({
      iteration: 1,
      id: 'resp_1',
      items: [
        {
          type: 'message',
          role: 'assistant',
          id: 'msg_1',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Reading first.', annotations: [] }],
        },
        { type: 'function_call', call_id: 'call_read', name: 'read_file', arguments: '{"path":"a"}' },
      ],
      usage: { ...ZERO_USAGE, inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    });
    await journal.callStarted({ itemIndex: 2, callId: 'call_read', key: 'read_file', idempotencyKey: 'k' });
    await journal.callFinished(readOutput);
    await journal.response({
      iteration: 2,
      id: 'resp_2',
      items: [
        { type: 'function_call', call_id: 'call_write', name: 'write_file', arguments: '{"path":"b"}' },
      ],
      usage: { ...ZERO_USAGE, inputTokens: 20, outputTokens: 5, totalTokens: 25 },
    });
    await requestWriteApproval(controlPlane.approvals, {
      turnId,
      workerId: WORKER,
      callId: 'call_write',
      callIndex: 4,
      activity: 'Writing b',
      arguments: { path: 'b' },
      checkpoint: { version: 3, activeMs: 10 },
    });

    const view = await heldTurnView({
      journals: controlPlane.journals,
      approvals: controlPlane.approvals,
      turnId,
      events: true,
    });
    expect(view.iterations).toBe(2);
    expect(view.usage).toMatchObject({ inputTokens: 30, outputTokens: 10, totalTokens: 40 });
    expect(view.events).toMatchObject([
      { type: 'text-delta', iteration: 1, delta: 'Reading first.' },
      { type: 'model-request-end', iteration: 1, responseId: 'resp_1', functionCallCount: 1 },
      {
        type: 'tool-call-end',
        callId: 'call_read',
        outcome: 'completed',
        result: { content: 'hello', isError: false },
      },
      { type: 'model-request-end', iteration: 2, responseId: 'resp_2', functionCallCount: 1 },
      { type: 'approval-requested', approval: { toolKey: 'write_file', status: 'pending', callIndex: 4 } },
    ]);
    // Usage alone (a turn's snapshot) reads no approvals and builds no events.
    const usageOnly = await heldTurnView({
      journals: controlPlane.journals,
      approvals: undefined,
      turnId,
      events: false,
    });
    expect(usageOnly).toEqual({ usage: view.usage, iterations: 2, events: [] });
  });
});
