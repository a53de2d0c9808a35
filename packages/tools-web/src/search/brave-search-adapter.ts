import { resultsAt } from './normalise';
import { requestJson } from './request-json';
import type { BraveSearchProfile, SearchAdapter } from './search-types';

/** Brave's documented API root. */
export const BRAVE_BASE_URL = 'https://api.search.brave.com/res/v1';

/**
 * The Brave Search adapter: `GET {baseUrl}/web/search?q=&count=` with `X-Subscription-Token`,
 * reading `web.results[]` (`title`, `url`, `description`, `page_age`).
 *
 * Contract: a body without `web` is no results (Brave omits it when nothing matched); a `web`
 * without a `results` array is malformed. HTTP failures are `requestJson`'s.
 */
export function createBraveSearchAdapter(profile: BraveSearchProfile, timeoutMs: number): SearchAdapter {
  const displayName = 'Brave Search';
  const base = (profile.baseUrl ?? BRAVE_BASE_URL).replace(/\/+$/, '');
  return {
    displayName,
    async search({ query, count, signal }) {
      const url = new URL(`${base}/web/search`);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(count, 20)));
      if (profile.country) url.searchParams.set('country', profile.country);
      if (profile.safesearch) url.searchParams.set('safesearch', profile.safesearch);
      const headers = { accept: 'application/json', 'x-subscription-token': profile.apiKey };
      const body = await requestJson(displayName, { url, method: 'GET', headers }, { signal, timeoutMs });
      if (typeof body === 'object' && body !== null && !('web' in body) && 'type' in body) return [];
      const names = { title: 'title', url: 'url', snippet: 'description', publishedDate: 'page_age' };
      return resultsAt(body, ['web', 'results'], names, count, displayName);
    },
  };
}
