import { postgresTitle, postgresUrl, testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { inputError } from '../__fixtures__/input-errors';

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: the cost of one recall`, () => {
    const suite = useControlPlane(backend, { brain: { maxRecallRows: 3 } }, 120_000);

    it('considers only the newest maxRecallRows pages that match', async () => {
      for (let index = 0; index < 8; index += 1) {
        await suite.controlPlane.brain.remember({
          agentId: 'uma',
          title: `Harbour note ${index}`,
          body: `The harbour crane ${index} was serviced.`,
        });
      }
      const hits = await suite.controlPlane.brain.recall({
        agentId: 'uma',
        query: 'harbour crane',
        limit: 10,
      });
      expect(hits.map((hit) => hit.title).sort()).toEqual([
        'Harbour note 5',
        'Harbour note 6',
        'Harbour note 7',
      ]);
    });

    it('finds a long page by a word past its first 4,096 characters, with a snippet from its start', async () => {
      const body = `${'Opening words about shipping schedules. '.repeat(300)}\nThe word zanzibar is only here.`;
      expect(body.indexOf('zanzibar')).toBeGreaterThan(4096);
      await suite.controlPlane.brain.remember({ agentId: 'vic', title: 'Long page', body });
      const [hit] = await suite.controlPlane.brain.recall({ agentId: 'vic', query: 'zanzibar', limit: 5 });
      expect(hit?.title).toBe('Long page');
      expect(hit?.snippet).toContain('Opening words about shipping schedules');
    });
  });
}

describe.runIf(postgresUrl !== null)(`${postgresTitle}: a recall past its statement_timeout`, () => {
  const backend = testBackends.find((candidate) => candidate.title === postgresTitle);
  if (backend === undefined) throw new Error('no PostgreSQL backend');
  const suite = useControlPlane(backend, { brain: { recallTimeoutMs: 1 } }, 120_000);

  it('is stopped and refused with a message the model can act on; the connection serves the next statement', async () => {
    for (let index = 0; index < 300; index += 1) {
      await suite.controlPlane.brain.remember({
        agentId: 'wes',
        title: `Ledger ${index}`,
        body: `Ledger entry ${index}: invoices, payments and refunds for the quarter. `.repeat(20),
      });
    }
    const refused = await inputError(
      suite.controlPlane.brain.recall({
        agentId: 'wes',
        query: 'invoices payments refunds quarter',
        limit: 20,
      }),
    );
    expect(refused.field).toBe('query');
    expect(refused.message).toContain('took longer than its 1 ms limit and was stopped');
    // The limit was local to the recall's transaction: other statements run without it.
    const [page] = await suite.rows<{ count: number }>(
      "SELECT count(*)::int AS count FROM switchyard.brain_pages, pg_sleep(0.01) WHERE agent_id = 'wes'",
    );
    expect(page?.count).toBe(300);
  });
});
