import type { RecordedTurn } from '@switchyard/core';
import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { uniqueTurnId } from '../__fixtures__/work-fixtures';
import { TurnJournalFencedError } from '../index';

// Turn journals on a real database: what is written is read back exactly; only the worker whose turn
// it is can write; a unit's next attempt starts from the latest earlier attempt that recorded anything.

const usage = { inputTokens: 3, cachedInputTokens: 0, outputTokens: 2, reasoningTokens: 0, totalTokens: 5 };

function response(iteration: number, text: string): RecordedTurn['responses'][number] {
  return {
    iteration,
    id: `resp_${iteration}`,
    items: [{ type: 'function_call', call_id: `call_${iteration}`, name: 'note', arguments: text }],
    usage,
  };
}

/** The arguments of a recorded response's call: the text each test wrote. */
function argumentsOf(entry: RecordedTurn['responses'][number]): string {
  const [item] = entry.items;
  return item?.type === 'function_call' ? item.arguments : '';
}

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: turn journals`, () => {
    const suite = useControlPlane(backend);

    const recordTurn = async (
      workerId: string,
      unit?: { source: 'job'; sourceId: string; attempt: number },
    ) => {
      const id = uniqueTurnId('journal');
      await suite.controlPlane.turns.recordStart({
        id,
        agentId: 'ada',
        source: unit?.source ?? 'api',
        ...(unit === undefined ? {} : { sourceId: unit.sourceId, attempt: unit.attempt }),
        prompt: 'p',
        workerId,
      });
      return id;
    };

    it('reads back exactly what was written, characters a database refuses elsewhere included', async () => {
      const turnId = await recordTurn('worker-a');
      const { journal, recorded } = await suite.controlPlane.journals.open({ turnId, workerId: 'worker-a' });
      expect(recorded).toBeUndefined();
      // A NUL and a lone surrogate: jsonb refuses the first, and neither may come back changed.
      const awkward = 'a\u0000b\ud800c';
      await journal.response(response(1, awkward));
      await journal.callStarted({
        itemIndex: 2,
        callId: 'call_1',
        key: 'note',
        idempotencyKey: `${turnId}:2`,
      });
      await journal.callFinished({
        itemIndex: 2,
        callId: 'call_1',
        output: { type: 'function_call_output', call_id: 'call_1', output: awkward },
        end: {
          type: 'tool-call-end',
          callId: 'call_1',
          itemIndex: 2,
          toolName: 'note',
          outcome: 'completed',
          durationMs: 4,
        } as never,
        endsTurn: false,
        loadsTools: [],
      });
      // Written twice (a call in doubt started again): the first stays.
      await journal.callStarted({ itemIndex: 2, callId: 'call_1', key: 'other', idempotencyKey: 'x' });
      const read = await suite.controlPlane.journals.read(turnId);
      expect(read.responses).toEqual([response(1, awkward)]);
      expect(read.started).toEqual([
        { itemIndex: 2, callId: 'call_1', key: 'note', idempotencyKey: `${turnId}:2` },
      ]);
      expect(read.outputs[0]?.output).toEqual({
        type: 'function_call_output',
        call_id: 'call_1',
        output: awkward,
      });
      const reopened = await suite.controlPlane.journals.open({ turnId, workerId: 'worker-a' });
      expect(reopened.counts).toEqual({ responses: 1, started: 1, outputs: 1 });
    });

    it('reads the starts a response entry carries as calls started, once each, in item order', async () => {
      const turnId = await recordTurn('worker-a');
      const { journal } = await suite.controlPlane.journals.open({ turnId, workerId: 'worker-a' });
      const start = (itemIndex: number) => ({
        itemIndex,
        callId: `call_${itemIndex}`,
        key: 'note',
        idempotencyKey: `${turnId}:${itemIndex}`,
      });
      await journal.callStarted(start(4));
      await journal.response({ ...response(1, 'a'), started: [start(3), start(1)] });
      // A call in doubt started again writes its own row as well: still one start.
      await journal.callStarted(start(1));
      const read = await suite.controlPlane.journals.read(turnId);
      expect(read.started).toEqual([start(1), start(3), start(4)]);
      expect(read.responses[0]?.started).toEqual([start(3), start(1)]);
      const reopened = await suite.controlPlane.journals.open({ turnId, workerId: 'worker-a' });
      expect(reopened.counts).toEqual({ responses: 1, started: 3, outputs: 0 });
    });

    it('leaves the stale API turns of the agents named for a claim, and marks the others', async () => {
      const turnId = await recordTurn('worker-gone');
      // A sweep of a process that resumes ada's API turns: the turn stays running for a claim.
      const kept = await suite.controlPlane.turns.markInterrupted({
        staleAfterMs: 0,
        exceptWorkerId: 'worker-sweeper',
        leaveApiTurnsOf: ['ada'],
      });
      expect(kept.map((turn) => turn.id)).not.toContain(turnId);
      expect((await suite.controlPlane.turns.get(turnId))?.status).toBe('running');
      const claimed = await suite.controlPlane.turns.claimInterrupted({
        staleAfterMs: 0,
        workerId: 'worker-sweeper',
        exceptWorkerId: 'worker-sweeper',
        agentIds: ['ada'],
        sources: ['api'],
      });
      expect(claimed.map((turn) => turn.id)).toContain(turnId);
      // A sweep of a process serving other agents marks it.
      const other = await recordTurn('worker-gone');
      const marked = await suite.controlPlane.turns.markInterrupted({
        staleAfterMs: 0,
        exceptWorkerId: 'worker-sweeper',
        leaveApiTurnsOf: ['bob'],
      });
      expect(marked.map((turn) => turn.id)).toContain(other);
    });

    it('refuses the writes of a worker whose turn another took over, and of an ended turn', async () => {
      const turnId = await recordTurn('worker-slow');
      const slow = await suite.controlPlane.journals.open({ turnId, workerId: 'worker-slow' });
      await slow.journal.response(response(1, 'first'));
      const claimed = await suite.controlPlane.turns.claimInterrupted({
        staleAfterMs: 0,
        workerId: 'worker-new',
        exceptWorkerId: 'worker-new',
        agentIds: ['ada'],
        sources: ['api'],
      });
      expect(claimed.find((turn) => turn.id === turnId)).toMatchObject({
        workerId: 'worker-new',
        resumedCount: 1,
        resumedAt: expect.any(String),
      });
      // Claimed once: a second look finds it is the new worker's own.
      const again = await suite.controlPlane.turns.claimInterrupted({
        staleAfterMs: 0,
        workerId: 'worker-other',
        exceptWorkerId: 'worker-new',
        agentIds: ['ada'],
        sources: ['api'],
      });
      expect(again.map((turn) => turn.id)).not.toContain(turnId);
      const late = slow.journal.response(response(2, 'late'));
      await expect(late).rejects.toSatisfy((error) => TurnJournalFencedError.isInstance(error));
      await expect(late).rejects.toThrow(/no longer running on worker worker-slow/);
      const taken = await suite.controlPlane.journals.open({ turnId, workerId: 'worker-new' });
      expect(taken.recorded?.responses.map(argumentsOf)).toEqual(['first']);
      await taken.journal.response(response(2, 'second'));
      await suite.controlPlane.turns.recordEnd({
        id: turnId,
        status: 'completed',
        output: 'done',
        usage,
        iterations: 2,
        events: [],
      });
      await expect(taken.journal.response(response(3, 'after the end'))).rejects.toThrow(/no longer running/);
      expect((await suite.controlPlane.journals.read(turnId)).responses.map(argumentsOf)).toEqual([
        'first',
        'second',
      ]);
    });

    const endTurn = (id: string, status: 'completed' | 'failed', iterations: number) =>
      suite.controlPlane.turns.recordEnd({
        id,
        status,
        output: status === 'completed' ? 'done' : '',
        usage,
        iterations,
        ...(status === 'failed' ? { error: 'the model could not be reached' } : {}),
        events: [],
      });

    it("starts a unit's next attempt from the latest earlier attempt that recorded anything, whatever its end", async () => {
      const sourceId = `job-${Date.now()}`;
      const job = (attempt: number) => ({ source: 'job' as const, sourceId, attempt });
      const first = await recordTurn('worker-dead', job(1));
      const dead = await suite.controlPlane.journals.open({ turnId: first, workerId: 'worker-dead' });
      await dead.journal.response(response(1, 'paid once'));
      await suite.controlPlane.turns.markInterrupted({ staleAfterMs: 0, exceptWorkerId: 'worker-live' });
      const second = await recordTurn('worker-live', job(2));
      const resumed = await suite.controlPlane.journals.open({ turnId: second, workerId: 'worker-live' });
      expect(resumed.recorded?.responses.map(argumentsOf)).toEqual(['paid once']);
      await resumed.journal.response(response(2, 'paid twice'));
      // Failed (the model was out of reach): the queue delivers the unit again; what was paid for stays.
      await endTurn(second, 'failed', 2);
      const third = await recordTurn('worker-live', job(3));
      const afterFailure = await suite.controlPlane.journals.open({ turnId: third, workerId: 'worker-live' });
      expect(afterFailure.recorded?.responses.map(argumentsOf)).toEqual(['paid once', 'paid twice']);
      await afterFailure.journal.response(response(3, 'the final answer'));
      // Completed, but its process died before the queue heard of it: the queue delivers it again
      // once the delivery expires. Attempt 4's process died before its turn opened its journal.
      await endTurn(third, 'completed', 3);
      await recordTurn('worker-dead', job(4));
      const fifth = await recordTurn('worker-live', job(5));
      const again = await suite.controlPlane.journals.open({ turnId: fifth, workerId: 'worker-live' });
      expect(again.recorded?.responses.map(argumentsOf)).toEqual([
        'paid once',
        'paid twice',
        'the final answer',
      ]);
      // Another unit's attempts are not this one's.
      const other = await recordTurn('worker-live', {
        source: 'job',
        sourceId: `${sourceId}-other`,
        attempt: 2,
      });
      const unrelated = await suite.controlPlane.journals.open({ turnId: other, workerId: 'worker-live' });
      expect(unrelated.recorded).toBeUndefined();
    });

    it('starts the next attempt from an attempt marked interrupted that then recorded its real end', async () => {
      const sourceId = `job-slow-${Date.now()}`;
      const slowTurn = await recordTurn('worker-slow', { source: 'job', sourceId, attempt: 1 });
      const slow = await suite.controlPlane.journals.open({ turnId: slowTurn, workerId: 'worker-slow' });
      await slow.journal.response(response(1, 'the final answer'));
      // Its heartbeats were late: taken for dead, its unit handed back, and then its end arrives.
      await suite.controlPlane.turns.markInterrupted({ staleAfterMs: 0, exceptWorkerId: 'worker-live' });
      expect(await endTurn(slowTurn, 'completed', 1)).toBe(true);
      expect((await suite.controlPlane.turns.get(slowTurn))?.status).toBe('completed');
      const next = await recordTurn('worker-live', { source: 'job', sourceId, attempt: 2 });
      const opened = await suite.controlPlane.journals.open({ turnId: next, workerId: 'worker-live' });
      expect(opened.recorded?.responses.map(argumentsOf)).toEqual(['the final answer']);
      expect(opened.counts).toEqual({ responses: 1, started: 0, outputs: 0 });
    });
  });
}
