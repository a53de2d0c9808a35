/** One Brain page, as a `BrainService` returns it. */
export interface BrainPage {
  /** The page id: `get_page`, `forget` and `remember`'s `pageId` take it. */
  pageId: string;
  /** The page title, one line. */
  title: string;
  /** The page itself, Markdown. */
  body: string;
  /** Its tags, lower case. */
  tags: string[];
  /** The version this is: 1 for a new page, one more for each change. */
  version: number;
  /** The page's current version (equal to `version` unless an earlier version was asked for). */
  latestVersion: number;
  /** When the page was first written (ISO 8601). */
  createdAt: string;
  /** When this version was written (ISO 8601). */
  updatedAt: string;
  /** When the page was forgotten (ISO 8601), or null. */
  archivedAt: string | null;
}

/** One page `recall` found. */
export interface BrainHit {
  /** The page id `get_page` takes. */
  pageId: string;
  /** The page title. */
  title: string;
  /** Its tags. */
  tags: string[];
  /** A short excerpt of the page around the words searched for. */
  snippet: string;
  /** The page's current version. */
  version: number;
  /** When it was last written (ISO 8601). */
  updatedAt: string;
}

/** What `remember` did. */
export interface BrainWriteOutcome {
  /** `created` a new page, `updated` one (its previous version kept), or `unchanged` (same text: no new version). */
  status: 'created' | 'updated' | 'unchanged';
  /** The page as it now stands. */
  page: BrainPage;
}

/**
 * An agent's Brain: durable knowledge pages, scoped by agent. `@switchyard/control-plane` implements it
 * (`controlPlane.brain`); the tools never see the database.
 *
 * Contract: every method acts only on `agentId`'s pages; another agent's page id is an unknown id.
 * `remember` keeps the previous version of a page it changes, and throws with a message the model can
 * act on (a field over its size limit, an unknown or forgotten `pageId`, a title another page has).
 * `getPage` and `forget` return null for an unknown id; `recall` and `getPage` never return forgotten
 * pages. Text that cannot be stored as it is (NUL, lone surrogates) is stored with U+FFFD in its place.
 */
export interface BrainService {
  /**
   * Writes a page: with `pageId`, a new version of that page; without, a new version of the agent's
   * page with that title (case-insensitive), or a new page.
   */
  remember(request: {
    agentId: string;
    pageId?: string;
    title: string;
    body: string;
    tags?: string[];
  }): Promise<BrainWriteOutcome>;
  /** Pages matching a full-text query (and carrying every tag given), best first. */
  recall(request: { agentId: string; query: string; tags?: string[]; limit: number }): Promise<BrainHit[]>;
  /** One page (its current version, or `version`); null when the agent has no such page or version. */
  getPage(request: { agentId: string; pageId: string; version?: number }): Promise<BrainPage | null>;
  /**
   * Archives a page: it no longer shows in `recall` or `getPage`, and is kept. Null for an unknown or
   * already forgotten id.
   */
  forget(request: { agentId: string; pageId: string }): Promise<BrainPage | null>;
}
