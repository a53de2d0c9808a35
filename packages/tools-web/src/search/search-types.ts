/** One search result, the same shape whatever the provider. */
export interface WebSearchResult {
  /** The result's title. */
  title: string;
  /** The result's URL. */
  url: string;
  /** A short extract of the page, plain text. */
  snippet: string;
  /** When the page was published, as the provider gives it (ISO 8601 when it does). */
  publishedDate?: string;
}

/** Settings every search profile shares. */
export interface SearchProfileBase {
  /** Provider API base URL; override for a proxy, a self-hosted gateway or tests. */
  baseUrl?: string;
  /** Per-request time limit. Default 20 000 ms. */
  timeoutMs?: number;
  /** Results returned when the model gives no `count`. Default 5 (at most 20). */
  defaultCount?: number;
}

/** Brave Search API (`GET /res/v1/web/search`, `X-Subscription-Token`). */
export interface BraveSearchProfile extends SearchProfileBase {
  /** Selects the adapter. */
  provider: 'brave';
  /** The subscription token. */
  apiKey: string;
  /** Two-letter country code for results, e.g. `us`. */
  country?: string;
  /** `off`, `moderate` (Brave's default) or `strict`. */
  safesearch?: 'off' | 'moderate' | 'strict';
}

/** Tavily Search API (`POST /search`, `Authorization: Bearer`). */
export interface TavilySearchProfile extends SearchProfileBase {
  /** Selects the adapter. */
  provider: 'tavily';
  /** The API key (`tvly-...`). */
  apiKey: string;
  /** `basic` (default) or `advanced`. */
  searchDepth?: 'basic' | 'advanced';
  /** `general` (default) or `news` (news results carry a published date). */
  topic?: 'general' | 'news';
}

/** A SearXNG instance's JSON API (`GET /search?format=json`; `json` must be enabled in its `search.formats`). */
export interface SearxngSearchProfile extends SearchProfileBase {
  /** Selects the adapter. */
  provider: 'searxng';
  /** The instance's URL, e.g. `http://searxng:8080`: required. */
  baseUrl: string;
  /** Comma-separated SearXNG categories, e.g. `general,news`. */
  categories?: string;
  /** Search language, e.g. `en`. */
  language?: string;
  /** Extra request headers, e.g. `Authorization` for an instance behind a proxy. */
  headers?: Record<string, string>;
}

/** The search provider profile bound to a turn: one of the adapters. */
export type WebSearchProfile = BraveSearchProfile | TavilySearchProfile | SearxngSearchProfile;

/** One search request to an adapter. */
export interface SearchRequest {
  /** The query. */
  query: string;
  /** Results wanted. */
  count: number;
  /** Cancels the request. */
  signal: AbortSignal;
}

/** A provider adapter: a real HTTP client for one provider's documented API. */
export interface SearchAdapter {
  /** Provider display name for messages, e.g. `Brave Search`. */
  readonly displayName: string;
  /** Runs one search. Contract: throws `SearchProviderError` for every provider failure. */
  search(request: SearchRequest): Promise<WebSearchResult[]>;
}
