import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { uniqueTurnId } from '../__fixtures__/work-fixtures';
import type { SqlExecutor } from '../database/database';
import { TurnJournalFencedError } from '../index';
import { queryControlPlane } from '../testing';
import { JournalWriteQueue, MAX_ROWS_PER_STATEMENT, MAX_STATEMENTS_IN_FLIGHT } from './journal-write-queue';

// The journal's coalesced writes on a real database: writes that arrive together go in few
// statements, each row still fenced by its own turn's worker, and a fenced turn takes no other's
// write down with it.

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: coalesced journal writes`, () => {
    const suite = useControlPlane(backend);

    /** The control plane's database, counting the statements the queue sends. */
    const countingExecutor = () => {
      const counted = { statements: 0 };
      const executor: SqlExecutor = {
        query: (text, values) => {
          counted.statements += 1;
          return queryControlPlane(suite.controlPlane, text, values);
        },
      } as SqlExecutor;
      return { counted, executor };
    };

    const recordTurns = (count: number, workerId: string) =>
      Promise.all(
        Array.from({ length: count }, async () => {
          const id = uniqueTurnId('queue');
          await suite.controlPlane.turns.recordStart({
            id,
            agentId: 'ada',
            source: 'api',
            prompt: 'p',
            workerId,
          });
          return id;
        }),
      );

    const write = (turnId: string, workerId: string, position: number) => {
      const text = JSON.stringify({ iteration: position, turnId });
      return { turnId, workerId, kind: 'response' as const, position, text, bytes: text.length };
    };

    it('writes many turns’ rows arriving together in a few statements, every row in the table', async () => {
      const turns = await recordTurns(120, 'worker-q');
      const { counted, executor } = countingExecutor();
      const queue = new JournalWriteQueue(executor);
      await Promise.all(
        turns.flatMap((turnId) => [1, 2, 3].map((step) => queue.append(write(turnId, 'worker-q', step)))),
      );
      // 360 rows: the first goes at once, alone; the other 359 wait for it and go together.
      expect(MAX_STATEMENTS_IN_FLIGHT).toBe(1);
      expect(MAX_ROWS_PER_STATEMENT).toBeGreaterThanOrEqual(359);
      expect(counted.statements).toBe(2);
      const rows = await suite.rows<{ count: number }>(
        'SELECT count(*)::int AS count FROM switchyard.turn_journal WHERE turn_id = ANY($1::text[])',
        [turns],
      );
      expect(rows[0]?.count).toBe(360);
    });

    it('refuses only the rows of a turn that is not its writer’s, in the same batch as rows it writes', async () => {
      const [mine, theirs, ended] = await recordTurns(3, 'worker-r');
      if (mine === undefined || theirs === undefined || ended === undefined) throw new Error('three turns');
      await suite.controlPlane.turns.recordEnd({
        id: ended,
        status: 'completed',
        output: 'done',
        iterations: 1,
        usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 },
      });
      const { counted, executor } = countingExecutor();
      const queue = new JournalWriteQueue(executor);
      // The first write takes the slot, so the four after it wait and go as one batch.
      const results = await Promise.allSettled([
        queue.append(write(mine, 'worker-r', 1)),
        queue.append(write(mine, 'worker-r', 2)),
        queue.append(write(mine, 'worker-r', 3)),
        queue.append(write(theirs, 'worker-other', 1)),
        queue.append(write(ended, 'worker-r', 1)),
      ]);
      expect(counted.statements).toBe(MAX_STATEMENTS_IN_FLIGHT + 1);
      expect(results.map((result) => result.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'rejected',
        'rejected',
      ]);
      for (const result of results.slice(3)) {
        expect(TurnJournalFencedError.isInstance((result as PromiseRejectedResult).reason)).toBe(true);
      }
      const rows = await suite.rows<{ turn_id: string; position: number }>(
        'SELECT turn_id, position FROM switchyard.turn_journal WHERE turn_id = ANY($1::text[]) ORDER BY turn_id, position',
        [[mine, theirs, ended]],
      );
      expect(rows).toEqual([1, 2, 3].map((position) => ({ turn_id: mine, position })));
    });

    it('keeps the first write of a position written twice in one batch', async () => {
      const [turnId] = await recordTurns(1, 'worker-s');
      if (turnId === undefined) throw new Error('one turn');
      const queue = new JournalWriteQueue(countingExecutor().executor);
      const first = { ...write(turnId, 'worker-s', 1), text: '"first"', bytes: 7 };
      const again = { ...write(turnId, 'worker-s', 1), text: '"again"', bytes: 7 };
      await Promise.all([
        queue.append(write(turnId, 'worker-s', 5)),
        queue.append(write(turnId, 'worker-s', 6)),
        queue.append(first),
        queue.append(again),
      ]);
      const rows = await suite.rows<{ entry: string }>(
        `SELECT entry FROM switchyard.turn_journal WHERE turn_id = $1 AND position = 1`,
        [turnId],
      );
      expect(rows).toEqual([{ entry: '"first"' }]);
    });
  });
}
