import { arrayAt, firstResults, normaliseResult } from './normalise';
import { requestJson } from './request-json';
import { SearchProviderError } from './search-provider-error';
import type { SearchAdapter, SearxngSearchProfile } from './search-types';

/**
 * The SearXNG adapter: `GET {baseUrl}/search?q=&format=json`, reading `results[]` (`title`,
 * `url`, `content`, `publishedDate`). SearXNG has no result-count parameter: the first `count`
 * results of page 1 are kept. An instance without `json` in `search.formats` answers 403.
 *
 * Contract: a body without a `results` array is malformed.
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
      let body: unknown;
      try {
        body = await requestJson(
          displayName,
          url,
          { method: 'GET', headers: { ...profile.headers, accept: 'application/json' } },
          { signal, timeoutMs },
        );
      } catch (error) {
        if (SearchProviderError.isInstance(error) && error.status === 403) {
          throw new SearchProviderError(
            'unauthorized',
            `${error.message}. A SearXNG instance answers 403 when its settings.yml lacks "json" in search.formats`,
            403,
          );
        }
        throw error;
      }
      const items = arrayAt(body, ['results'], displayName);
      return firstResults(
        items.map((item) => {
          const fields = (item ?? {}) as Record<string, unknown>;
          return normaliseResult({
            title: fields.title,
            url: fields.url,
            snippet: fields.content,
            publishedDate: fields.publishedDate,
          });
        }),
        count,
      );
    },
  };
}
