import { resultsAt } from './normalise';
import { requestJson } from './request-json';
import type { SearchAdapter, TavilySearchProfile } from './search-types';

/** Tavily's documented API root. */
export const TAVILY_BASE_URL = 'https://api.tavily.com';

/**
 * The Tavily adapter: `POST {baseUrl}/search` with `Authorization: Bearer` and a JSON body
 * (`query`, `max_results`, `search_depth`, `topic`), reading `results[]` (`title`, `url`,
 * `content`, `published_date`).
 *
 * Contract: a body without a `results` array is malformed. HTTP failures are `requestJson`'s.
 */
export function createTavilySearchAdapter(profile: TavilySearchProfile, timeoutMs: number): SearchAdapter {
  const displayName = 'Tavily';
  const base = (profile.baseUrl ?? TAVILY_BASE_URL).replace(/\/+$/, '');
  return {
    displayName,
    async search({ query, count, signal }) {
      const headers = {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${profile.apiKey}`,
      };
      const requestBody = JSON.stringify({
        query,
        max_results: Math.min(count, 20),
        search_depth: profile.searchDepth ?? 'basic',
        topic: profile.topic ?? 'general',
        include_answer: false,
        include_raw_content: false,
        include_images: false,
      });
      const url = new URL(`${base}/search`);
      const body = await requestJson(
        displayName,
        { url, method: 'POST', headers, body: requestBody },
        { signal, timeoutMs },
      );
      const names = { title: 'title', url: 'url', snippet: 'content', publishedDate: 'published_date' };
      return resultsAt(body, ['results'], names, count, displayName);
    },
  };
}
