/** One Brain page as the control plane returns it (the `BrainPage` of `@switchyard/tools-brain`). */
export interface BrainPageRecord {
  /** The page id (a UUID). */
  pageId: string;
  /** The title, one line. */
  title: string;
  /** The page, Markdown. */
  body: string;
  /** Its tags: lower case, without spaces. */
  tags: string[];
  /** The version this is: 1 for a new page, one more for each change. */
  version: number;
  /** The page's current version. */
  latestVersion: number;
  /** When the page was first written (ISO 8601). */
  createdAt: string;
  /** When this version was written (ISO 8601). */
  updatedAt: string;
  /** When the page was forgotten (ISO 8601), or null. */
  archivedAt: string | null;
}

/** One page `recall` found (the `BrainHit` of `@switchyard/tools-brain`, plus its rank). */
export interface BrainHitRecord {
  /** The page id. */
  pageId: string;
  /** The title. */
  title: string;
  /** Its tags. */
  tags: string[];
  /** An excerpt around the words searched for (at most 300 characters). */
  snippet: string;
  /** The page's current version. */
  version: number;
  /** When it was last written (ISO 8601). */
  updatedAt: string;
  /** How many of the query's terms (words or quoted phrases) the page holds: more come first. */
  matchedTerms: number;
  /** True when the page holds every term of the query. */
  everyTerm: boolean;
  /** `ts_rank_cd` of the page for the query's terms: the order among pages holding as many terms. */
  rank: number;
}

/** What `remember` did (the `BrainWriteOutcome` of `@switchyard/tools-brain`). */
export interface BrainWriteRecord {
  /** `created`, `updated` (previous version kept) or `unchanged` (same title, body and tags: no new version). */
  status: 'created' | 'updated' | 'unchanged';
  /** The page as it now stands. */
  page: BrainPageRecord;
}

/** What `remember` takes. */
export interface RememberRequest {
  /** The agent whose page it is. */
  agentId: string;
  /** The page to rewrite; absent: the agent's active page with this title (case-insensitive), or a new one. */
  pageId?: string;
  /** The title (whitespace runs become one space). */
  title: string;
  /** The page, Markdown. */
  body: string;
  /** Tags (trimmed, lower-cased, inner spaces become `-`). Default none. */
  tags?: string[];
}

/** What `recall` takes. */
export interface RecallRequest {
  /** The agent whose pages are searched. */
  agentId: string;
  /** A web-search style query (`websearch_to_tsquery`): words, "quoted phrases", -excluded, or. */
  query: string;
  /** Only pages carrying every one of these tags. */
  tags?: string[];
  /** Most pages returned (1 to 50). */
  limit: number;
}

/** A page in `listPages`, without its body. */
export interface BrainPageSummary {
  /** The page id. */
  pageId: string;
  /** Whose page it is. */
  agentId: string;
  /** The title. */
  title: string;
  /** Its tags. */
  tags: string[];
  /** Its current version. */
  version: number;
  /** The current body's size in UTF-8 bytes. */
  bytes: number;
  /** When it was first written (ISO 8601). */
  createdAt: string;
  /** When it was last written (ISO 8601). */
  updatedAt: string;
  /** When it was forgotten (ISO 8601), or null. */
  archivedAt: string | null;
}

/** A page with its owner and the versions kept, for an operator (`showPage`). */
export interface BrainPageDetails extends BrainPageRecord {
  /** Whose page it is. */
  agentId: string;
  /** Every version, oldest first, the current one last. */
  versions: Array<{
    /** The version number. */
    version: number;
    /** Its title. */
    title: string;
    /** Its body's size in UTF-8 bytes. */
    bytes: number;
    /** When it was written (ISO 8601). */
    writtenAt: string;
  }>;
}
