import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { inputError } from '../__fixtures__/input-errors';

const KIB = 1024;

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: the Brain's quota and retention`, () => {
    const suite = useControlPlane(
      backend,
      { brain: { maxPageBytes: 8 * KIB, maxPagesPerAgent: 3, maxBytesPerAgent: 10 * KIB, retentionDays: 1 } },
      120_000,
    );
    const brain = () => suite.controlPlane.brain;
    const write = (agentId: string, title: string, body: string, pageId?: string) =>
      brain().remember({ agentId, title, body, ...(pageId === undefined ? {} : { pageId }) });

    /** The usage row, and the same figures summed from what is stored. */
    async function usage(agentId: string) {
      const [kept] = await suite.rows<{ pages: number; bytes: string }>(
        'SELECT pages, bytes FROM switchyard.brain_usage WHERE agent_id = $1',
        [agentId],
      );
      const [stored] = await suite.rows<{
        pages: number;
        bytes: string;
        versions: number;
        forgotten: number;
      }>(
        `SELECT (SELECT count(*) FROM switchyard.brain_pages WHERE agent_id = $1 AND archived_at IS NULL)::int AS pages,
                (SELECT count(*) FROM switchyard.brain_pages WHERE agent_id = $1 AND archived_at IS NOT NULL)::int AS forgotten,
                (SELECT count(*) FROM switchyard.brain_page_versions WHERE agent_id = $1)::int AS versions,
                (SELECT coalesce(sum(greatest(octet_length(body), 1024)), 0) FROM switchyard.brain_pages WHERE agent_id = $1)
              + (SELECT coalesce(sum(greatest(octet_length(body), 1024)), 0) FROM switchyard.brain_page_versions WHERE agent_id = $1)
                AS bytes`,
        [agentId],
      );
      return {
        kept: { pages: kept?.pages ?? 0, bytes: Number(kept?.bytes ?? 0) },
        stored: { pages: stored?.pages ?? -1, bytes: Number(stored?.bytes ?? -1) },
        versions: stored?.versions ?? -1,
        forgotten: stored?.forgotten ?? -1,
      };
    }

    it('refuses a page past maxPagesPerAgent, saying what to do, and takes one again once a page is forgotten', async () => {
      const pages = [];
      for (const title of ['One', 'Two', 'Three']) pages.push((await write('pia', title, 'text')).page);
      const refused = await inputError(write('pia', 'Four', 'text'));
      expect(refused.field).toBe('title');
      expect(refused.message).toContain('you have 3 pages, the most your Brain keeps (3); forget pages');
      // A rewrite is not a new page: it is taken.
      expect((await write('pia', 'One', 'new text')).status).toBe('updated');
      await brain().forget({ agentId: 'pia', pageId: pages[1]?.pageId as string });
      expect((await write('pia', 'Four', 'text')).status).toBe('created');
      const seen = await usage('pia');
      expect(seen.kept).toEqual(seen.stored);
      expect(seen.kept.pages).toBe(3);
    });

    it('makes room by removing the oldest history first, and refuses, writing nothing, when the pages alone pass the quota', async () => {
      // Each body counts 2 KiB: page a with two earlier versions, page b forgotten, page c.
      const body = (letter: string) => letter.repeat(2 * KIB);
      const a = (await write('quin', 'A', body('1'))).page.pageId;
      await write('quin', 'A', body('2'), a);
      await write('quin', 'A', body('3'), a);
      const b = (await write('quin', 'B', body('b'))).page.pageId;
      await brain().forget({ agentId: 'quin', pageId: b });
      expect((await usage('quin')).kept.bytes).toBe(8 * KIB);
      // 2 KiB more fits exactly; 2 more KiB needs the oldest version of a.
      await write('quin', 'C', body('c'));
      await write('quin', 'A', body('4'), a);
      const versions = await suite.rows<{ version: number }>(
        'SELECT version FROM switchyard.brain_page_versions WHERE page_id = $1 ORDER BY version',
        [a],
      );
      expect(versions.map((row) => row.version)).toEqual([2, 3]);
      // 4 KiB more (a rewrite of c) needs both versions of a: versions go before forgotten pages.
      await write('quin', 'C', body('d').repeat(2));
      let seen = await usage('quin');
      expect(seen).toMatchObject({ versions: 1, forgotten: 1 });
      expect(seen.kept).toEqual(seen.stored);
      // A new 6 KiB page needs 6 KiB: the last version and the forgotten page free 4 KiB, and the
      // active pages hold 6 KiB of the 10: refused, and nothing removed or written.
      const before = await usage('quin');
      const refused = await inputError(write('quin', 'D', body('e').repeat(3)));
      expect(refused.field).toBe('body');
      expect(refused.message).toContain('past its quota of 10,240 bytes');
      seen = await usage('quin');
      expect(seen).toEqual(before);
      expect(
        (await brain().listPages({ agentId: 'quin', includeArchived: true })).map((page) => page.title),
      ).toEqual(['C', 'A', 'B']);
    });

    it('prunes versions replaced and pages forgotten before the retention, and nothing newer', async () => {
      const old = (await write('rey', 'Old', 'v1')).page.pageId;
      await write('rey', 'Old', 'v2', old);
      await write('rey', 'Old', 'v3', old);
      const gone = (await write('rey', 'Gone', 'forgotten long ago')).page.pageId;
      const recent = (await write('rey', 'Recent', 'forgotten today')).page.pageId;
      await brain().forget({ agentId: 'rey', pageId: gone });
      await brain().forget({ agentId: 'rey', pageId: recent });
      // Version 1 was replaced, and Gone forgotten, two days ago; version 2 and Recent just now.
      await suite.rows(
        `UPDATE switchyard.brain_page_versions SET replaced_at = now() - interval '2 days'
         WHERE page_id = $1 AND version = 1`,
        [old],
      );
      await suite.rows(
        `UPDATE switchyard.brain_pages SET archived_at = now() - interval '2 days' WHERE id = $1`,
        [gone],
      );
      const pruned = await brain().prune();
      expect(pruned).toMatchObject({ versions: 1, pages: 1 });
      expect(await brain().getPage({ agentId: 'rey', pageId: old, version: 1 })).toBeNull();
      expect((await brain().getPage({ agentId: 'rey', pageId: old, version: 2 }))?.body).toBe('v2');
      expect(await brain().showPage({ pageId: gone })).toBeNull();
      expect((await brain().showPage({ pageId: recent }))?.archivedAt).not.toBeNull();
      let seen = await usage('rey');
      expect(seen.kept).toEqual(seen.stored);
      // A day and more later, everything replaced or forgotten is past the retention, every agent's
      // (the earlier tests of this file left some), and each usage still matches what is stored.
      const later = await brain().prune({ now: new Date(Date.now() + 2 * 24 * 60 * 60 * 1000) });
      expect(later.versions).toBeGreaterThanOrEqual(1);
      expect(later.pages).toBeGreaterThanOrEqual(1);
      seen = await usage('rey');
      expect(seen).toMatchObject({ versions: 0, forgotten: 0 });
      const agents = await suite.rows<{ agent_id: string }>('SELECT agent_id FROM switchyard.brain_usage');
      for (const { agent_id: agentId } of agents) {
        const other = await usage(agentId);
        expect(other.kept, agentId).toEqual(other.stored);
        expect(other).toMatchObject({ versions: 0, forgotten: 0 });
      }
      expect((await brain().getPage({ agentId: 'rey', pageId: old }))?.body).toBe('v3');
    });

    it('keeps each agent to its own quota', async () => {
      for (const title of ['One', 'Two', 'Three']) await write('sol', title, 'text');
      expect((await write('tam', 'One', 'text')).status).toBe('created');
      expect((await usage('tam')).kept).toEqual({ pages: 1, bytes: KIB });
    });
  });
}
