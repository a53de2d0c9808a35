import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { inputError } from '../__fixtures__/input-errors';
import { uniqueTurnId } from '../__fixtures__/work-fixtures';
import type { TurnUsage } from '../index';
import { queryControlPlane } from '../testing';

const MAX_VALUE_BYTES = 16 * 1024;
const USAGE: TurnUsage = {
  inputTokens: 120,
  cachedInputTokens: 20,
  outputTokens: 30,
  reasoningTokens: 5,
  totalTokens: 150,
};

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: turn records`, () => {
    const suite = useControlPlane(backend, { maxValueBytes: MAX_VALUE_BYTES }, 120_000);
    /** Records the start of an API turn of `agentId` on worker `workerId`; returns its id. */
    const startApiTurn = async (
      agentId: string,
      workerId: string,
      prompt = 'p',
      id = uniqueTurnId('test'),
    ) => {
      await suite.controlPlane.turns.recordStart({ id, agentId, source: 'api', prompt, workerId });
      return id;
    };

    it('records a start as running and an end with its output, usage and events', async () => {
      const id = uniqueTurnId('test');
      const started = await suite.controlPlane.turns.recordStart({
        id,
        agentId: 'ada',
        source: 'schedule',
        sourceId: 'run-1',
        prompt: 'water the plants',
        workerId: 'worker-a',
      });
      expect(started).toMatchObject({
        id,
        agentId: 'ada',
        source: 'schedule',
        sourceId: 'run-1',
        prompt: 'water the plants',
        status: 'running',
        output: '',
        iterations: 0,
        eventsDropped: 0,
        workerId: 'worker-a',
        usage: { inputTokens: 0, totalTokens: 0 },
      });
      expect(started.endedAt).toBeUndefined();
      expect(await suite.controlPlane.turns.events(id)).toEqual({ events: [], dropped: 0 });
      expect(await suite.controlPlane.turns.eventCount(id)).toBe(0);
      expect(await suite.controlPlane.turns.eventCount('turn_unknown')).toBeUndefined();

      const events = [{ type: 'turn-start' }, { type: 'turn-end', status: 'completed' }];
      expect(
        await suite.controlPlane.turns.recordEnd({
          id,
          status: 'completed',
          output: 'Watered.',
          usage: USAGE,
          iterations: 2,
          events,
        }),
      ).toBe(true);
      const ended = await suite.controlPlane.turns.get(id);
      expect(ended).toMatchObject({ status: 'completed', output: 'Watered.', usage: USAGE, iterations: 2 });
      expect(ended?.error).toBeUndefined();
      expect(Date.parse(ended?.endedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(started.createdAt));
      expect(await suite.controlPlane.turns.events(id)).toEqual({ events, dropped: 0 });
      expect(await suite.controlPlane.turns.eventCount(id)).toBe(2);
      // An end is recorded once.
      expect(
        await suite.controlPlane.turns.recordEnd({
          id,
          status: 'failed',
          output: '',
          usage: USAGE,
          iterations: 0,
        }),
      ).toBe(false);
      expect((await suite.controlPlane.turns.get(id))?.status).toBe('completed');
      expect(
        await suite.controlPlane.turns.recordEnd({
          id: 'turn_unknown',
          status: 'completed',
          output: '',
          usage: USAGE,
          iterations: 0,
        }),
      ).toBe(false);
      expect(await suite.controlPlane.turns.get('turn_unknown')).toBeUndefined();
      expect(await suite.controlPlane.turns.get('not a turn id!')).toBeUndefined();
    });

    it("records a turn whose final response was cut off as 'incomplete', with the reason", async () => {
      const id = await startApiTurn('ada', 'worker-a', 'write a long essay');
      const reason = 'the final response was cut off (max_output_tokens)';
      expect(
        await suite.controlPlane.turns.recordEnd({
          id,
          status: 'incomplete',
          output: 'The essay begins',
          usage: USAGE,
          iterations: 1,
          error: reason,
        }),
      ).toBe(true);
      expect(await suite.controlPlane.turns.get(id)).toMatchObject({ status: 'incomplete', error: reason });
      const { rows } = await queryControlPlane<{ status: string }>(
        suite.controlPlane,
        'SELECT status FROM switchyard.turns WHERE id = $1',
        [id],
      );
      expect(rows).toEqual([{ status: 'incomplete' }]);
    });

    it('refuses bad input naming the field, and a second start of the same id', async () => {
      const base = {
        id: uniqueTurnId('test'),
        agentId: 'ada',
        source: 'api' as const,
        prompt: 'x',
        workerId: 'w',
      };
      await suite.controlPlane.turns.recordStart(base);
      expect((await inputError(suite.controlPlane.turns.recordStart(base))).field).toBe('id');
      expect(
        (await inputError(suite.controlPlane.turns.recordStart({ ...base, id: 'has space' }))).field,
      ).toBe('id');
      expect(
        (
          await inputError(
            suite.controlPlane.turns.recordStart({ ...base, id: uniqueTurnId('test'), agentId: 'a b' }),
          )
        ).field,
      ).toBe('agentId');
      const badSource = { ...base, id: uniqueTurnId('test'), source: 'cron' as 'api' };
      expect((await inputError(suite.controlPlane.turns.recordStart(badSource))).field).toBe('source');
      const end = { id: base.id, status: 'completed' as const, output: '', usage: USAGE, iterations: 1 };
      expect(
        (await inputError(suite.controlPlane.turns.recordEnd({ ...end, status: 'running' as 'failed' })))
          .field,
      ).toBe('status');
      expect(
        (
          await inputError(
            suite.controlPlane.turns.recordEnd({ ...end, usage: { ...USAGE, outputTokens: -1 } }),
          )
        ).field,
      ).toBe('usage.outputTokens');
      expect((await inputError(suite.controlPlane.turns.recordEnd({ ...end, iterations: 1.5 }))).field).toBe(
        'iterations',
      );
      expect((await inputError(suite.controlPlane.turns.list({ limit: 0 }))).field).toBe('limit');
      // A cursor naming an instant that does not exist, or an id that is not one, is the caller's
      // mistake named, never the database's error.
      for (const [before, field] of [
        [{ createdAt: '2024-02-30T00:00:00Z', id: 'turn_x' }, 'before.createdAt'],
        [{ createdAt: '2024-01-01T99:00:00Z', id: 'turn_x' }, 'before.createdAt'],
        [{ createdAt: '2024-01-01T00:00:00Z', id: 'a\u0000b' }, 'before.id'],
      ] as const) {
        expect((await inputError(suite.controlPlane.turns.page({ before }))).field).toBe(field);
        expect(
          (
            await inputError(
              suite.controlPlane.approvals.page({ before: { ...before, id: `approval_${before.id}` } }),
            )
          ).field,
        ).toBe(field);
      }
      expect((await inputError(suite.controlPlane.turns.list({ status: 'done' as 'failed' }))).field).toBe(
        'status',
      );
      // Nothing was written by the refused end.
      expect((await suite.controlPlane.turns.get(base.id))?.status).toBe('running');
    });

    it('stores model-made text PostgreSQL cannot hold, replacing only the unstorable characters', async () => {
      const id = await startApiTurn('ada', 'w');
      const lone = '\uD800';
      const nul = String.fromCharCode(0);
      expect(
        await suite.controlPlane.turns.recordEnd({
          id,
          status: 'failed',
          output: `a\u0000b${lone}c 😀`,
          error: `bad\u0000`,
          usage: USAGE,
          iterations: 1,
          events: [{ [`key${nul}`]: `v${lone}`, text: 'back\\u0000slash' }],
        }),
      ).toBe(true);
      const record = await suite.controlPlane.turns.get(id);
      expect(record).toMatchObject({ output: 'a\uFFFDb\uFFFDc 😀', error: 'bad\uFFFD' });
      expect((await suite.controlPlane.turns.events(id))?.events).toEqual([
        { 'key\uFFFD': 'v\uFFFD', text: 'back\\u0000slash' },
      ]);
    });

    it('keeps the start and end of an event log over the size limit, and cuts long output', async () => {
      const id = await startApiTurn('ada', 'w');
      const events = Array.from({ length: 400 }, (_, index) => ({
        type: 'text-delta',
        index,
        delta: 'x'.repeat(80),
      }));
      await suite.controlPlane.turns.recordEnd({
        id,
        status: 'completed',
        output: 'é'.repeat(MAX_VALUE_BYTES),
        usage: USAGE,
        iterations: 1,
        events,
      });
      const log = await suite.controlPlane.turns.events(id);
      expect(log?.dropped).toBeGreaterThan(0);
      expect((log?.events.length ?? 0) + (log?.dropped ?? 0)).toBe(events.length);
      expect(Buffer.byteLength(JSON.stringify(log?.events))).toBeLessThanOrEqual(MAX_VALUE_BYTES);
      expect(log?.events[0]).toEqual(events[0]);
      expect(log?.events.at(-1)).toEqual(events.at(-1));
      const record = await suite.controlPlane.turns.get(id);
      expect(record?.eventsDropped).toBe(log?.dropped);
      expect(Buffer.byteLength(record?.output ?? '')).toBeLessThanOrEqual(MAX_VALUE_BYTES);
      expect(record?.output).toMatch(/^é+\n\[truncated: over the stored size limit\]$/);
    });

    it('marks running turns whose heartbeats stopped as interrupted, and lets a real end replace that', async () => {
      const stale = uniqueTurnId('test');
      const alive = uniqueTurnId('test');
      const refreshed = uniqueTurnId('test');
      for (const id of [stale, alive, refreshed]) {
        await startApiTurn('bob', 'w', id, id);
      }
      // Their worker last said so an hour ago; `refreshed`'s worker says so again now.
      await queryControlPlane(
        suite.controlPlane,
        "UPDATE switchyard.turns SET heartbeat_at = now() - interval '1 hour' WHERE id = ANY($1::text[])",
        [[stale, refreshed]],
      );
      await suite.controlPlane.turns.heartbeat([refreshed]);
      const marked = await suite.controlPlane.turns.markInterrupted({
        staleAfterMs: 60_000,
        reason: 'worker gone',
      });
      expect(marked.map((record) => record.id)).toEqual([stale]);
      expect(await suite.controlPlane.turns.get(stale)).toMatchObject({
        status: 'interrupted',
        error: 'worker gone',
      });
      expect((await suite.controlPlane.turns.get(alive))?.status).toBe('running');
      expect((await suite.controlPlane.turns.get(refreshed))?.status).toBe('running');
      expect(
        (await suite.controlPlane.turns.list({ agentId: 'bob', status: 'interrupted' })).map((r) => r.id),
      ).toEqual([stale]);
      // The turn was in fact still running: its real end wins.
      expect(
        await suite.controlPlane.turns.recordEnd({
          id: stale,
          status: 'completed',
          output: 'late',
          usage: USAGE,
          iterations: 1,
        }),
      ).toBe(true);
      expect(await suite.controlPlane.turns.get(stale)).toMatchObject({
        status: 'completed',
        output: 'late',
      });
      expect((await suite.controlPlane.turns.get(stale))?.error).toBeUndefined();
      // staleAfterMs 0: every running turn of other workers (a database only this process opens, at start-up).
      const mine = await startApiTurn('bob', 'me');
      const all = await suite.controlPlane.turns.markInterrupted({ staleAfterMs: 0, exceptWorkerId: 'me' });
      expect(all.map((record) => record.id)).toEqual(expect.arrayContaining([alive, refreshed]));
      expect((await suite.controlPlane.turns.list({ status: 'running' })).map((record) => record.id)).toEqual(
        [mine],
      );
    });

    it('lists turns newest first, filtered by agent and status', async () => {
      const ids = [uniqueTurnId('test'), uniqueTurnId('test'), uniqueTurnId('test')];
      for (const id of ids) {
        await suite.controlPlane.turns.recordStart({
          id,
          agentId: 'carol',
          source: 'task',
          prompt: id,
          workerId: 'w',
        });
      }
      expect((await suite.controlPlane.turns.list({ agentId: 'carol' })).map((r) => r.id)).toEqual(
        [...ids].reverse(),
      );
      expect((await suite.controlPlane.turns.list({ agentId: 'carol', limit: 2 })).map((r) => r.id)).toEqual(
        [...ids].reverse().slice(0, 2),
      );
    });
  });
}
