import { testBackends } from '@switchyard/test-databases';
import { beforeAll, describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { inputError } from '../__fixtures__/input-errors';
import type { ControlPlane } from '../index';
import { RECALL_CORPUS, RECALL_QUERIES } from './__fixtures__/recall-corpus';

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: the Brain`, () => {
    const suite = useControlPlane(backend, { brain: { maxPageBytes: 4096 } }, 120_000);

    beforeAll(async () => {
      for (const page of RECALL_CORPUS) {
        await suite.controlPlane.brain.remember({ agentId: 'corpus', ...page });
      }
    }, 120_000);

    /** Writes a new page of `agentId`, without tags. */
    const writePage = (agentId: string, title: string, body: string) =>
      suite.controlPlane.brain.remember({ agentId, title, body });

    async function pageCount(agentId: string): Promise<number> {
      const rows = await suite.rows<{ count: number }>(
        'SELECT count(*)::int AS count FROM switchyard.brain_pages WHERE agent_id = $1',
        [agentId],
      );
      return rows[0]?.count ?? -1;
    }

    describe('writing pages', () => {
      it('creates a page with a one-line title and normalised tags, and reads it back', async () => {
        const { status, page } = await suite.controlPlane.brain.remember({
          agentId: 'ada',
          title: '  Deploy\n checklist ',
          body: '# Deploys\n\n1. Merge to main.\n2. Watch the canary.\n',
          tags: ['Ops', 'release notes', 'ops'],
        });
        expect(status).toBe('created');
        expect(page).toMatchObject({
          title: 'Deploy checklist',
          body: '# Deploys\n\n1. Merge to main.\n2. Watch the canary.\n',
          tags: ['ops', 'release-notes'],
          version: 1,
          latestVersion: 1,
          archivedAt: null,
        });
        expect(page.pageId).toMatch(/^[0-9a-f-]{36}$/);
        expect(await suite.controlPlane.brain.getPage({ agentId: 'ada', pageId: page.pageId })).toEqual(page);
      });

      it('rewrites a page by title or by id, keeping every previous version', async () => {
        const first = await writePage('ada', 'Runbook', 'version one');
        const second = await writePage('ada', 'RUNBOOK', 'version two');
        expect(second).toMatchObject({
          status: 'updated',
          page: { pageId: first.page.pageId, version: 2, title: 'RUNBOOK' },
        });
        const third = await suite.controlPlane.brain.remember({
          agentId: 'ada',
          pageId: first.page.pageId,
          title: 'Runbook for deploys',
          body: 'version three',
          tags: ['ops'],
        });
        expect(third).toMatchObject({ status: 'updated', page: { version: 3, latestVersion: 3 } });
        const pageId = first.page.pageId;
        expect(await suite.controlPlane.brain.getPage({ agentId: 'ada', pageId, version: 1 })).toMatchObject({
          title: 'Runbook',
          body: 'version one',
          tags: [],
          version: 1,
          latestVersion: 3,
          createdAt: first.page.createdAt,
          updatedAt: first.page.updatedAt,
        });
        expect((await suite.controlPlane.brain.getPage({ agentId: 'ada', pageId, version: 2 }))?.body).toBe(
          'version two',
        );
        expect((await suite.controlPlane.brain.getPage({ agentId: 'ada', pageId }))?.body).toBe(
          'version three',
        );
        expect(await suite.controlPlane.brain.getPage({ agentId: 'ada', pageId, version: 4 })).toBeNull();
        const shown = await suite.controlPlane.brain.showPage({ pageId });
        expect(shown?.versions.map(({ version, title }) => [version, title])).toEqual([
          [1, 'Runbook'],
          [2, 'RUNBOOK'],
          [3, 'Runbook for deploys'],
        ]);
        expect(shown?.agentId).toBe('ada');
      });

      it('stores nothing new when a write repeats what the page says', async () => {
        const page = { agentId: 'ada', title: 'Same', body: 'same body', tags: ['a'] };
        const created = await suite.controlPlane.brain.remember(page);
        const again = await suite.controlPlane.brain.remember({ ...page, tags: ['A'] });
        expect(again).toEqual({ status: 'unchanged', page: created.page });
      });

      it('refuses a rewrite to a title another page has, and a rewrite of an unknown or forgotten page', async () => {
        const taken = await writePage('ada', 'Taken', 'a');
        const other = await writePage('ada', 'Other', 'b');
        const clash = await inputError(
          suite.controlPlane.brain.remember({
            agentId: 'ada',
            pageId: other.page.pageId,
            title: 'taken',
            body: 'b2',
          }),
        );
        expect(clash.field).toBe('title');
        expect(clash.message).toContain(`your page ${taken.page.pageId} is titled "taken"`);
        expect(
          (await suite.controlPlane.brain.getPage({ agentId: 'ada', pageId: other.page.pageId }))?.version,
        ).toBe(1);
        expect(
          (
            await inputError(
              suite.controlPlane.brain.remember({ agentId: 'ada', pageId: 'p1', title: 'x', body: 'y' }),
            )
          ).message,
        ).toBe('pageId: you have no page "p1"; leave pageId out to write a new page');
        await suite.controlPlane.brain.forget({ agentId: 'ada', pageId: other.page.pageId });
        expect(
          (
            await inputError(
              suite.controlPlane.brain.remember({
                agentId: 'ada',
                pageId: other.page.pageId,
                title: 'Other',
                body: 'c',
              }),
            )
          ).message,
        ).toMatch(/was forgotten; leave pageId out/);
      });

      it('stores any text: NUL characters and lone surrogates become U+FFFD, in the title, body and tags', async () => {
        const { page } = await suite.controlPlane.brain.remember({
          agentId: 'ada',
          title: 'odd\u0000title\ud800',
          body: 'a\u0000b \udc00 zebrafish',
          tags: ['t\u0000g'],
        });
        expect(page).toMatchObject({
          title: 'odd\ufffdtitle\ufffd',
          body: 'a\ufffdb \ufffd zebrafish',
          tags: ['t\ufffdg'],
        });
        const [hit] = await suite.controlPlane.brain.recall({
          agentId: 'ada',
          query: 'zebrafish\u0000',
          limit: 5,
        });
        expect(hit?.pageId).toBe(page.pageId);
      });

      it('refuses what is over a limit or empty, naming the field, and stores nothing', async () => {
        const before = await pageCount('ada');
        const cases: Array<[Parameters<ControlPlane['brain']['remember']>[0], string]> = [
          [
            { agentId: 'ada', title: 'big', body: 'x'.repeat(4097) },
            'body: is 4.0 KiB, over the limit of 4.0 KiB',
          ],
          [{ agentId: 'ada', title: ' \n ', body: 'x' }, 'title: must not be empty'],
          [{ agentId: 'ada', title: 't', body: '  ' }, 'body: must not be empty'],
          [{ agentId: 'ada', title: 't'.repeat(301), body: 'x' }, 'title: is 301 B, over the limit of 300 B'],
          [
            { agentId: 'ada', title: 't', body: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
            'tags: has 21 tags',
          ],
          [{ agentId: 'ada', title: 't', body: 'x', tags: ['ok', ' '] }, 'tags[1]: must not be empty'],
          [{ agentId: 'no agent', title: 't', body: 'x' }, 'agentId: must match'],
        ];
        for (const [request, message] of cases) {
          expect((await inputError(suite.controlPlane.brain.remember(request))).message).toContain(message);
        }
        expect(await pageCount('ada')).toBe(before);
        expect(
          (await inputError(suite.controlPlane.brain.recall({ agentId: 'ada', query: 'x', limit: 0 }))).field,
        ).toBe('limit');
        expect(
          (await inputError(suite.controlPlane.brain.recall({ agentId: 'ada', query: ' ', limit: 5 }))).field,
        ).toBe('query');
      });

      it('keeps one page per title when writers race, each write a version', async () => {
        const writes = await Promise.all(
          Array.from({ length: 5 }, (_, index) => writePage('racer', 'Shared notes', `writer ${index}`)),
        );
        expect(writes.filter((write) => write.status === 'created')).toHaveLength(1);
        expect(new Set(writes.map((write) => write.page.pageId)).size).toBe(1);
        expect(await pageCount('racer')).toBe(1);
        const [summary] = await suite.controlPlane.brain.listPages({ agentId: 'racer' });
        expect(summary?.version).toBe(5);
      });
    });

    describe('agent isolation', () => {
      it("never shows, rewrites or forgets another agent's page, and lets two agents use one title", async () => {
        const { page } = await writePage('ada', 'Private plan', 'wombat launch');
        expect(await suite.controlPlane.brain.getPage({ agentId: 'bob', pageId: page.pageId })).toBeNull();
        expect(await suite.controlPlane.brain.recall({ agentId: 'bob', query: 'wombat', limit: 5 })).toEqual(
          [],
        );
        expect(await suite.controlPlane.brain.forget({ agentId: 'bob', pageId: page.pageId })).toBeNull();
        expect(
          (
            await inputError(
              suite.controlPlane.brain.remember({
                agentId: 'bob',
                pageId: page.pageId,
                title: 'x',
                body: 'y',
              }),
            )
          ).field,
        ).toBe('pageId');
        const bobs = await writePage('bob', 'Private plan', 'wombat too');
        expect(bobs.status).toBe('created');
        expect(
          (await suite.controlPlane.brain.recall({ agentId: 'ada', query: 'wombat', limit: 5 })).map(
            (hit) => hit.pageId,
          ),
        ).toEqual([page.pageId]);
        expect(
          (await suite.controlPlane.brain.listPages({ agentId: 'bob' })).map((entry) => entry.title),
        ).toEqual(['Private plan']);
      });
    });

    describe('forgetting', () => {
      it('archives a page: gone from recall and getPage, kept for the operator; its title is free again', async () => {
        const { page } = await writePage('ada', 'Old office', 'quokka street 1');
        const forgotten = await suite.controlPlane.brain.forget({ agentId: 'ada', pageId: page.pageId });
        expect(forgotten?.archivedAt).toEqual(expect.any(String));
        expect(await suite.controlPlane.brain.forget({ agentId: 'ada', pageId: page.pageId })).toBeNull();
        expect(await suite.controlPlane.brain.getPage({ agentId: 'ada', pageId: page.pageId })).toBeNull();
        expect(await suite.controlPlane.brain.recall({ agentId: 'ada', query: 'quokka', limit: 5 })).toEqual(
          [],
        );
        expect((await suite.controlPlane.brain.showPage({ pageId: page.pageId }))?.archivedAt).toBe(
          forgotten?.archivedAt,
        );
        const listed = await suite.controlPlane.brain.listPages({ agentId: 'ada', includeArchived: true });
        expect(listed.find((entry) => entry.pageId === page.pageId)?.archivedAt).toBe(forgotten?.archivedAt);
        expect(
          (await suite.controlPlane.brain.listPages({ agentId: 'ada' })).some(
            (entry) => entry.pageId === page.pageId,
          ),
        ).toBe(false);
        const again = await writePage('ada', 'Old office', 'quokka street 2');
        expect(again.status).toBe('created');
        expect(again.page.pageId).not.toBe(page.pageId);
      });
    });

    describe('recall ranking on a fixed corpus', () => {
      it.each(RECALL_QUERIES)('ranks "$first" first for $query', async ({ query, first, tags }) => {
        const hits = await suite.controlPlane.brain.recall({
          agentId: 'corpus',
          query,
          limit: 5,
          ...(tags === undefined ? {} : { tags }),
        });
        expect(
          hits.map((hit) => hit.title)[0],
          JSON.stringify(hits.map(({ title, rank, everyTerm }) => [title, rank, everyTerm])),
        ).toBe(first);
      });

      /** The corpus page recall ranks first for `query`. */
      const bestCorpusHit = async (query: string) =>
        (await suite.controlPlane.brain.recall({ agentId: 'corpus', query, limit: 1 }))[0];

      it('answers with a snippet around the words searched for, the page id, tags and version', async () => {
        const hit = await bestCorpusHit('wildcard certificate');
        expect(hit).toMatchObject({
          title: 'TLS certificate renewal',
          tags: ['security', 'tls'],
          version: 1,
          everyTerm: true,
        });
        expect(hit?.snippet).toContain('wildcard certificate');
        expect(hit?.snippet.length).toBeLessThanOrEqual(301);
        const page = await suite.controlPlane.brain.getPage({ agentId: 'corpus', pageId: hit?.pageId ?? '' });
        expect(page?.title).toBe('TLS certificate renewal');
        // A word no page has: pages holding the other terms still come, and say how many they hold.
        const partial = await bestCorpusHit('wildcard certificate platypus');
        expect(partial).toMatchObject({
          title: 'TLS certificate renewal',
          everyTerm: false,
          matchedTerms: 2,
        });
      });

      it('takes any query text without failing: operators, quotes and punctuation are words or nothing', async () => {
        const odd = [
          '"unclosed phrase',
          'or or -- - or',
          '!x (y) & z | w <-> v',
          "'quoted' \\ backslash",
          'a-b-c e-mail v2.3 ¿qué? 数据库',
          '-billing -deploys',
          'OR deploy OR',
        ];
        for (const query of odd) {
          const hits = await suite.controlPlane.brain.recall({ agentId: 'corpus', query, limit: 3 });
          expect(Array.isArray(hits), query).toBe(true);
        }
      });

      it('finds nothing for a query of only common words, and honours the limit and tags', async () => {
        expect(
          await suite.controlPlane.brain.recall({ agentId: 'corpus', query: 'the of and', limit: 5 }),
        ).toEqual([]);
        expect(
          await suite.controlPlane.brain.recall({ agentId: 'corpus', query: 'security', limit: 2 }),
        ).toHaveLength(2);
        const tagged = await suite.controlPlane.brain.recall({
          agentId: 'corpus',
          query: 'postgres',
          tags: ['backups'],
          limit: 5,
        });
        expect(tagged.map((hit) => hit.title)).toEqual(['Postgres backups and restore']);
      });
    });
  });
}
