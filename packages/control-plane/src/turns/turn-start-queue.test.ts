import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { inputError } from '../__fixtures__/input-errors';
import { uniqueTurnId } from '../__fixtures__/work-fixtures';

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: turn starts recorded together`, () => {
    const suite = useControlPlane(backend, {}, 120_000);

    it('records a burst of starts, each with its own fields, and refuses a repeated id whichever batch it falls in', async () => {
      const ids = Array.from({ length: 300 }, (_, index) => uniqueTurnId(`burst${index}`));
      const start = (id: string, index: number) =>
        suite.controlPlane.turns.recordStart({
          id,
          agentId: index % 2 === 0 ? 'ada' : 'bob',
          source: index % 3 === 0 ? 'task' : 'api',
          ...(index % 3 === 0 ? { sourceId: `wf/${index}`, attempt: 1 + (index % 4) } : {}),
          prompt: `prompt ${index} ${'x'.repeat(index)}`,
          workerId: 'worker-a',
        });
      const settled = await Promise.allSettled([
        ...ids.map(start),
        // The same id twice in one burst, and an id recorded before the burst.
        start(ids[7] as string, 7),
      ]);
      const records = settled.slice(0, ids.length).map((outcome) => {
        if (outcome.status === 'rejected') throw outcome.reason;
        return outcome.value;
      });
      expect(records.map((record) => record.id)).toEqual(ids);
      for (const [index, record] of records.entries()) {
        expect(record).toMatchObject({
          status: 'running',
          agentId: index % 2 === 0 ? 'ada' : 'bob',
          source: index % 3 === 0 ? 'task' : 'api',
          prompt: `prompt ${index} ${'x'.repeat(index)}`,
          workerId: 'worker-a',
        });
        if (index % 3 === 0)
          expect(record).toMatchObject({ sourceId: `wf/${index}`, attempt: 1 + (index % 4) });
        else expect(record.sourceId).toBeUndefined();
      }
      const repeated = settled.at(-1);
      expect(repeated?.status).toBe('rejected');
      expect((await inputError(Promise.reject((repeated as PromiseRejectedResult).reason))).field).toBe('id');
      expect((await inputError(start(ids[0] as string, 0))).field).toBe('id');
      const stored = await suite.rows<{ n: number }>(
        'SELECT count(*)::int AS n FROM switchyard.turns WHERE id = ANY($1::text[])',
        [ids],
      );
      expect(stored[0]?.n).toBe(ids.length);
    });
  });
}
