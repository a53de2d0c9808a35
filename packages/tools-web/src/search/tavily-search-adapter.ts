import { arrayAt, firstResults, normaliseResult } from './normalise';
import { requestJson } from './request-json';
import type { SearchAdapter, TavilySearchProfile } from './search-types';

/** Tavily's documented API root. */
export const TAVILY_BASE_URL = 'https://api.tavily.com';

/**
 * The Tavily adapter: `POST {baseUrl}/search` with `Authorization: Bearer` and a JSON body
 * (`query`, `max_results`, `search_depth`, `topic`), reading `results[]` (`title`, `url`,
 * `content`, `published_date`).
 *
 * Contract: a body without a `results` array is malformed.
 */
export function createTavilySearchAdapter(profile: TavilySearchProfile, timeoutMs: number): SearchAdapter {
  const displayName = 'Tavily';
  const base = (profile.baseUrl ?? TAVILY_BASE_URL).replace(/\/+$/, '');
  return {
    displayName,
    async search({ query, count, signal }) {
      const body = await requestJson(
        displayName,
        new URL(`${base}/search`),
        {
          method: 'POST',
          headers: {
            accept: 'application/json',
            'content-type': 'application/json',
            authorization: `Bearer ${profile.apiKey}`,
          },
          body: JSON.stringify({
            query,
            max_results: Math.min(count, 20),
            search_depth: profile.searchDepth ?? 'basic',
            topic: profile.topic ?? 'general',
            include_answer: false,
            include_raw_content: false,
            include_images: false,
          }),
        },
        { signal, timeoutMs },
      );
      const items = arrayAt(body, ['results'], displayName);
      return firstResults(
        items.map((item) => {
          const fields = (item ?? {}) as Record<string, unknown>;
          return normaliseResult({
            title: fields.title,
            url: fields.url,
            snippet: fields.content,
            publishedDate: fields.published_date,
          });
        }),
        count,
      );
    },
  };
}
