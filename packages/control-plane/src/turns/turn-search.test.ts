import { setTimeout as delay } from 'node:timers/promises';
import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { inputError } from '../__fixtures__/input-errors';
import { uniqueTurnId } from '../__fixtures__/work-fixtures';
import { searchPageOf } from './turn-search';

describe('a search page of scanned turns', () => {
  const row = (index: number, matched: boolean) => ({
    id: `turn_${index}`,
    cursor_time: `2026-12-05T00:00:${String(59 - index).padStart(2, '0')}.000000Z`,
    matched,
  });

  it('shows the first matches and goes on after the last one shown when more matched', () => {
    const scanned = [row(0, true), row(1, false), row(2, true), row(3, true)];
    expect(searchPageOf(scanned, 2, 100)).toEqual({
      ids: ['turn_0', 'turn_2'],
      next: { createdAt: scanned[2]?.cursor_time, id: 'turn_2' },
    });
  });

  it('goes on after the last row read when the scan stopped at its bound, even with no match', () => {
    const scanned = [row(0, false), row(1, false), row(2, false)];
    expect(searchPageOf(scanned, 2, 3)).toEqual({
      ids: [],
      next: { createdAt: scanned[2]?.cursor_time, id: 'turn_2' },
    });
  });

  it('ends when every row was read', () => {
    expect(searchPageOf([row(0, true), row(1, false)], 2, 3)).toEqual({ ids: ['turn_0'] });
  });
});

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: searching turns`, () => {
    const suite = useControlPlane(backend, {}, 120_000);

    const record = async (agentId: string, prompt: string) => {
      const id = uniqueTurnId('search');
      await suite.controlPlane.turns.recordStart({
        id,
        agentId,
        source: 'api',
        prompt,
        workerId: 'worker-s',
      });
      // The next turn starts at least 2 ms later: a turn's createdAt is read back to the millisecond
      // from a column that holds microseconds, so a turn started in the same millisecond before it
      // would also be at or after its createdAt (a time range's test saw three turns for two).
      await delay(2);
      return id;
    };

    it('finds turns by text in their prompt, case-insensitively, with the other filters and a time range', async () => {
      const agent = `search-${backend.title.length}-${Date.now()}`;
      const first = await record(agent, 'Summarise the FLAKY build log\nthen open an issue');
      const second = await record(agent, 'water the plants');
      const third = await record(agent, 'Why is the flaky test flaky?');
      await record(`${agent}-other`, 'flaky elsewhere');

      const found = await suite.controlPlane.turns.page({ agentId: agent, text: 'flaky' });
      expect(found.turns.map((turn) => turn.id)).toEqual([third, first]);
      expect(found.next).toBeUndefined();
      expect(found.turns[1]?.title).toBe('Summarise the FLAKY build log');

      const paged = await suite.controlPlane.turns.page({ agentId: agent, text: 'FLAKY', limit: 1 });
      expect(paged.turns.map((turn) => turn.id)).toEqual([third]);
      const rest = await suite.controlPlane.turns.page({
        agentId: agent,
        text: 'FLAKY',
        limit: 1,
        ...(paged.next === undefined ? {} : { before: paged.next }),
      });
      expect(rest.turns.map((turn) => turn.id)).toEqual([first]);

      const secondRecord = await suite.controlPlane.turns.get(second);
      const createdAt = secondRecord?.createdAt ?? '';
      const since = await suite.controlPlane.turns.page({ agentId: agent, createdAfter: createdAt });
      expect(since.turns.map((turn) => turn.id)).toEqual([third, second]);
      const until = await suite.controlPlane.turns.page({ agentId: agent, createdBefore: createdAt });
      expect(until.turns.map((turn) => turn.id)).toEqual([first]);
      expect(
        (await suite.controlPlane.turns.page({ agentId: agent, text: 'nothing like it' })).turns,
      ).toEqual([]);
    });

    it('refuses a bad search text or time range, naming the field', async () => {
      const field = async (options: Parameters<typeof suite.controlPlane.turns.page>[0]) =>
        (await inputError(suite.controlPlane.turns.page(options))).field;
      expect(await field({ text: '' })).toBe('text');
      expect(await field({ text: 'x'.repeat(201) })).toBe('text');
      expect(await field({ text: 'a\u0000b' })).toBe('text');
      expect(await field({ createdAfter: '2026-02-30T00:00:00Z' })).toBe('createdAfter');
      expect(await field({ createdBefore: 'yesterday' })).toBe('createdBefore');
      expect(
        await field({ createdAfter: '2026-12-05T00:00:00Z', createdBefore: '2026-12-04T00:00:00Z' }),
      ).toBe('createdBefore');
    });
  });
}
