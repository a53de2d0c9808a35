import { type BrainPage, type BrainService, type BrainToolsMode, createBrainTools } from '../index';

interface StoredPage {
  agentId: string;
  versions: BrainPage[];
  archivedAt: string | null;
}

/**
 * An in-memory BrainService: the tools' contract without a database (the control plane's real store is
 * tested on PGlite and PostgreSQL in its own package, and through the tools in the worker). Recall is a
 * plain word match, enough to drive the tools.
 */
export function memoryBrain(): BrainService & { calls: unknown[] } {
  const pages = new Map<string, StoredPage>();
  const calls: unknown[] = [];
  let clock = Date.UTC(2030, 0, 1);
  const now = () => {
    clock += 1000;
    return new Date(clock).toISOString();
  };
  const current = (page: StoredPage): BrainPage => {
    const latest = page.versions.at(-1) as BrainPage;
    return { ...latest, archivedAt: page.archivedAt };
  };
  const visible = (agentId: string, pageId: string) => {
    const page = pages.get(pageId);
    return page?.agentId === agentId && page.archivedAt === null ? page : undefined;
  };
  return {
    calls,
    async remember(request) {
      calls.push(request);
      const { agentId, title, body } = request;
      if (title.trim() === '') throw new Error('title: must not be empty');
      const tags = (request.tags ?? []).map((tag) => tag.trim().toLowerCase());
      let id = request.pageId;
      if (id !== undefined && visible(agentId, id) === undefined) {
        throw new Error(`pageId: you have no page ${id}; leave pageId out to write a new page`);
      }
      id ??= [...pages.entries()].find(
        ([pageId, page]) =>
          visible(agentId, pageId) !== undefined &&
          current(page).title.toLowerCase() === title.trim().toLowerCase(),
      )?.[0];
      if (id === undefined) {
        const pageId = `p${pages.size + 1}`;
        const at = now();
        const page: BrainPage = {
          pageId,
          title: title.trim(),
          body,
          tags,
          version: 1,
          latestVersion: 1,
          createdAt: at,
          updatedAt: at,
          archivedAt: null,
        };
        pages.set(pageId, { agentId, versions: [page], archivedAt: null });
        return { status: 'created', page };
      }
      const stored = pages.get(id) as StoredPage;
      const before = current(stored);
      if (before.title === title.trim() && before.body === body && before.tags.join() === tags.join()) {
        return { status: 'unchanged', page: before };
      }
      const version = before.version + 1;
      const page = {
        ...before,
        title: title.trim(),
        body,
        tags,
        version,
        latestVersion: version,
        updatedAt: now(),
      };
      for (const earlier of stored.versions) earlier.latestVersion = version;
      stored.versions.push(page);
      return { status: 'updated', page };
    },
    async recall(request) {
      calls.push(request);
      const words = request.query.toLowerCase().split(/\s+/).filter(Boolean);
      return [...pages.entries()]
        .filter(([pageId]) => visible(request.agentId, pageId) !== undefined)
        .map(([, page]) => current(page))
        .filter((page) => (request.tags ?? []).every((tag) => page.tags.includes(tag)))
        .map((page) => ({
          page,
          score: words.filter((word) => `${page.title} ${page.body}`.toLowerCase().includes(word)).length,
        }))
        .filter(({ score }) => score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, request.limit)
        .map(({ page }) => ({
          pageId: page.pageId,
          title: page.title,
          tags: page.tags,
          snippet: page.body.slice(0, 200),
          version: page.version,
          updatedAt: page.updatedAt,
        }));
    },
    async getPage({ agentId, pageId, version }) {
      const page = visible(agentId, pageId);
      if (page === undefined) return null;
      if (version === undefined) return current(page);
      return page.versions.find((entry) => entry.version === version) ?? null;
    },
    async forget({ agentId, pageId }) {
      const page = visible(agentId, pageId);
      if (page === undefined) return null;
      page.archivedAt = now();
      return current(page);
    },
  };
}

/** A page written before a test runs; by agent `ada` unless another agent is named. */
export interface SeedPage {
  /** The writer; default `ada`. */
  agentId?: string;
  /** The page title. */
  title: string;
  /** The page text. */
  body: string;
  /** The page tags. */
  tags?: string[];
}

/** An in-memory Brain holding `pages` (written in order: ids p1, p2, ...) and the brain tools on it for agent ada. */
export async function seededBrainTools(mode: BrainToolsMode, ...pages: SeedPage[]) {
  const brain = memoryBrain();
  for (const page of pages) await brain.remember({ agentId: 'ada', ...page });
  return { brain, tools: createBrainTools({ brain, agentId: 'ada', mode }) };
}
