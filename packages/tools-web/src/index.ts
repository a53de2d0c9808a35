// Any export added here is public API: keep it named, documented and deliberate.

export { createWebTools, type WebToolsContext } from './create-web-tools';
export { WebToolsConfigError } from './errors/web-tools-config-error';
export { type CheckUrlOptions, type CheckUrlResult, checkUrl } from './guard/check-url';
export type { LookupAddress, LookupFunction } from './guard/guard-policy';
export type {
  BraveSearchProfile,
  SearchProfileBase,
  SearxngSearchProfile,
  TavilySearchProfile,
  WebSearchProfile,
  WebSearchResult,
} from './search/search-types';
export type { WebFetchDetails, WebFetchOptions } from './web-fetch-tool';
export type { WebSearchDetails } from './web-search-tool';
