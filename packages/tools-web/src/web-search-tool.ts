import { type AgentToolResult, defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { WebToolsConfigError } from './errors/web-tools-config-error';
import { truncate } from './format-size';
import { createBraveSearchAdapter } from './search/brave-search-adapter';
import { SearchProviderError } from './search/search-provider-error';
import type { SearchAdapter, WebSearchProfile, WebSearchResult } from './search/search-types';
import { createSearxngSearchAdapter } from './search/searxng-search-adapter';
import { createTavilySearchAdapter } from './search/tavily-search-adapter';
import { webContentMarker, wrapUntrusted } from './untrusted-content';

/** What a `web_search` result carries in `details`. */
export interface WebSearchDetails {
  /** The provider of the bound profile. */
  provider: WebSearchProfile['provider'];
  /** The query as searched. */
  query: string;
  /** The normalised results (absent when the search failed). */
  results?: WebSearchResult[];
  /** Why the search failed, when it did. */
  failure?: SearchProviderError['kind'];
  /** HTTP status of a failed provider call. */
  status?: number;
  /** Seconds the provider asked to wait (`Retry-After` on a 429 or a 5xx). */
  retryAfterSeconds?: number;
}

const PROVIDERS = ['brave', 'tavily', 'searxng'] as const;
const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_COUNT = 5;
const MAX_COUNT = 20;

const webSearchSchema = z.object({
  query: z.string().describe('What to search the web for.'),
  count: z
    .number()
    .int()
    .min(1)
    .max(MAX_COUNT)
    .optional()
    .describe('How many results to return (1-20). Default 5.'),
});

type WebSearchParams = z.output<typeof webSearchSchema>;

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new WebToolsConfigError({ field, message: 'must be a non-empty string' });
  }
  return value;
}

function checkBaseUrl(value: unknown, field: string): void {
  const text = requireString(value, field);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebToolsConfigError({
      field,
      message: `must be an absolute http(s) URL, got ${JSON.stringify(text)}`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebToolsConfigError({ field, message: `must be an http or https URL, got ${url.protocol}` });
  }
}

function integerOption(
  value: unknown,
  field: string,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new WebToolsConfigError({
      field,
      message: `must be an integer from 1 to ${max}, got ${String(value)}`,
    });
  }
  return value;
}

function oneOf(value: unknown, field: string, allowed: readonly string[]): void {
  if (value !== undefined && !allowed.includes(value as string)) {
    throw new WebToolsConfigError({
      field,
      message: `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`,
    });
  }
}

function createAdapter(profile: WebSearchProfile, timeoutMs: number): SearchAdapter {
  switch (profile.provider) {
    case 'brave':
      requireString(profile.apiKey, 'search.apiKey');
      oneOf(profile.safesearch, 'search.safesearch', ['off', 'moderate', 'strict']);
      if (profile.baseUrl !== undefined) checkBaseUrl(profile.baseUrl, 'search.baseUrl');
      return createBraveSearchAdapter(profile, timeoutMs);
    case 'tavily':
      requireString(profile.apiKey, 'search.apiKey');
      oneOf(profile.searchDepth, 'search.searchDepth', ['basic', 'advanced']);
      oneOf(profile.topic, 'search.topic', ['general', 'news']);
      if (profile.baseUrl !== undefined) checkBaseUrl(profile.baseUrl, 'search.baseUrl');
      return createTavilySearchAdapter(profile, timeoutMs);
    case 'searxng':
      checkBaseUrl(profile.baseUrl, 'search.baseUrl');
      if (
        profile.headers !== undefined &&
        (typeof profile.headers !== 'object' || profile.headers === null)
      ) {
        throw new WebToolsConfigError({
          field: 'search.headers',
          message: 'must be an object of header values',
        });
      }
      return createSearxngSearchAdapter(profile, timeoutMs);
    default:
      throw new WebToolsConfigError({
        field: 'search.provider',
        message: `must be one of ${PROVIDERS.join(', ')}, got ${JSON.stringify((profile as { provider?: unknown }).provider)}`,
      });
  }
}

function formatResults(results: WebSearchResult[]): string {
  if (results.length === 0) return 'No results.';
  return results
    .map((result, index) =>
      [
        `${index + 1}. ${result.title}`,
        `   ${result.url}`,
        ...(result.publishedDate ? [`   Published: ${result.publishedDate}`] : []),
        ...(result.snippet ? [`   ${result.snippet}`] : []),
      ].join('\n'),
    )
    .join('\n\n');
}

/**
 * Creates the `web_search` tool for one provider profile (Brave Search, Tavily or SearXNG).
 * Results are normalised (title, url, snippet, published date) and reach the model inside
 * untrusted-content markers.
 *
 * Contract: throws `WebToolsConfigError` naming the field for an unknown provider, a missing API
 * key or base URL, or a bad option. Provider failures (401/403, 429 with `Retry-After`, 5xx, a
 * malformed or over-4 MB body, network errors, timeouts) and an empty query are `isError` results.
 *
 * @example
 * const webSearch = createWebSearchTool({ provider: 'brave', apiKey: process.env.BRAVE_API_KEY ?? '' });
 */
export function createWebSearchTool(
  profile: WebSearchProfile,
): WorkerAgentTool<WebSearchParams, WebSearchDetails> {
  if (typeof profile !== 'object' || profile === null) {
    throw new WebToolsConfigError({ field: 'search', message: 'must be a provider profile object' });
  }
  const timeoutMs = integerOption(profile.timeoutMs, 'search.timeoutMs', DEFAULT_TIMEOUT_MS);
  const defaultCount = integerOption(profile.defaultCount, 'search.defaultCount', DEFAULT_COUNT, MAX_COUNT);
  const adapter = createAdapter(profile, timeoutMs);
  const provider = profile.provider;

  return defineWorkerTool({
    name: 'web_search',
    description: `Search the web (${adapter.displayName}) and return the top results: title, URL, snippet and published date when known. Use web_fetch to read a result.`,
    schema: webSearchSchema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ query }) => `Searching the web for "${truncate(query.trim(), 60)}"`,
    describeCompletedActivity: ({ query }, result) =>
      result.isError
        ? `Web search failed for "${truncate(query.trim(), 60)}"`
        : `Found ${result.details?.results?.length ?? 0} results for "${truncate(query.trim(), 60)}"`,
    async execute({ query, count }, context): Promise<AgentToolResult<WebSearchDetails>> {
      const trimmed = query.trim();
      if (trimmed === '') {
        return {
          content: 'web_search needs a non-empty query.',
          details: { provider, query },
          isError: true,
        };
      }
      try {
        const results = await adapter.search({
          query: trimmed,
          count: count ?? defaultCount,
          signal: context.signal,
        });
        const { marker, notice } = webContentMarker();
        return {
          content: `${results.length} result(s) from ${adapter.displayName} for "${trimmed}".\n${notice}\n${wrapUntrusted(
            marker,
            `${provider}:search`,
            formatResults(results),
          )}`,
          details: { provider, query: trimmed, results },
        };
      } catch (error) {
        if (!SearchProviderError.isInstance(error)) throw error;
        return {
          content: `web_search failed: ${error.message}`,
          details: {
            provider,
            query: trimmed,
            failure: error.kind,
            ...(error.status === undefined ? {} : { status: error.status }),
            ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
          },
          isError: true,
        };
      }
    },
  });
}
