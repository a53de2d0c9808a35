import type { AnyWorkerAgentTool } from '@switchyard/core';
import { WebToolsConfigError } from './errors/web-tools-config-error';
import type { WebSearchProfile } from './search/search-types';
import { createWebFetchTool, type WebFetchOptions } from './web-fetch-tool';
import { createWebSearchTool } from './web-search-tool';

/** What `createWebTools` needs from the turn: which web tools are bound, and how. */
export interface WebToolsContext {
  /** The search provider profile. Absent (or null): no `web_search` tool. */
  search?: WebSearchProfile | null;
  /**
   * Enables `web_fetch`: `true` for the defaults, or its options. Absent, null or false: no
   * `web_fetch` tool.
   */
  fetch?: boolean | WebFetchOptions | null;
}

/**
 * Creates the web tools bound in the context: `web_search` when `search` names a provider
 * profile, `web_fetch` when `fetch` is enabled, in that order. Nothing bound, no tools (not a
 * tool that errors).
 *
 * Contract: throws `WebToolsConfigError` naming the field (`search.apiKey`, `fetch.timeoutMs`,
 * ...) for bad configuration, at creation. Tool failures at run time are `isError` results.
 *
 * @example
 * const tools = createWebTools({
 *   search: { provider: 'brave', apiKey: process.env.BRAVE_API_KEY ?? '' },
 *   fetch: { timeoutMs: 15_000 },
 * });
 * // [web_search, web_fetch]
 */
export function createWebTools(context: WebToolsContext = {}): AnyWorkerAgentTool[] {
  if (typeof context !== 'object' || context === null) {
    throw new WebToolsConfigError({ field: 'context', message: 'must be an object' });
  }
  const tools: AnyWorkerAgentTool[] = [];
  if (context.search !== undefined && context.search !== null) {
    tools.push(createWebSearchTool(context.search));
  }
  const { fetch } = context;
  if (fetch !== undefined && fetch !== null && fetch !== false) {
    if (fetch !== true && (typeof fetch !== 'object' || Array.isArray(fetch))) {
      throw new WebToolsConfigError({ field: 'fetch', message: 'must be true, false or an options object' });
    }
    tools.push(createWebFetchTool(fetch === true ? {} : fetch));
  }
  return tools;
}
