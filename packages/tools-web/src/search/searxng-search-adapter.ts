import { resultsAt } from './normalise';
import { requestJson } from './request-json';
import type { SearchAdapter, SearxngSearchProfile } from './search-types';

const statusHints = {
  403: 'A SearXNG instance answers 403 when its settings.yml lacks "json" in search.formats',
};

/**
 * The SearXNG adapter: `GET {baseUrl}/search?q=&format=json`, reading `results[]` (`title`,
 * `url`, `content`, `publishedDate`). SearXNG has no result-count parameter: the first `count`
 * results of page 1 are kept. An instance without `json` in `search.formats` answers 403.
 *
 * Contract: a body without a `results` array is malformed; a 403 names the missing `json` format.
 * HTTP failures are otherwise `requestJson`'s.
 */
export function createSearxngSearchAdapter(profile: SearxngSearchProfile, timeoutMs: number): SearchAdapter {
  const displayName = 'SearXNG';
  const base = profile.baseUrl.replace(/\/+$/, '');
  return {
    displayName,
    async search({ query, count, signal }) {
      const url = new URL(`${base}/search`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      url.searchParams.set('pageno', '1');
      if (profile.categories) url.searchParams.set('categories', profile.categories);
      if (profile.language) url.searchParams.set('language', profile.language);
      const headers = { ...profile.headers, accept: 'application/json' };
      const body = await requestJson(
        displayName,
        { url, method: 'GET', headers },
        { signal, timeoutMs, statusHints },
      );
      const names = { title: 'title', url: 'url', snippet: 'content', publishedDate: 'publishedDate' };
      return resultsAt(body, ['results'], names, count, displayName);
    },
  };
}
