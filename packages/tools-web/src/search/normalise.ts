import { SearchProviderError } from './search-provider-error';
import type { WebSearchResult } from './search-types';

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
};

/** Characters of a provider's title or snippet that are read; the rest is not. */
const MAX_FIELD_INPUT = 16 * 1024;
/** Characters of a title or snippet kept after clean-up. */
export const MAX_FIELD_LENGTH = 4000;

/**
 * Plain text from a provider snippet: tags removed, common entities decoded, whitespace collapsed,
 * at most `MAX_FIELD_LENGTH` characters (an ellipsis marks a cut).
 *
 * Contract: bounded work. Only the first 16 KiB of the field are read (a provider, or a page it
 * indexed, may send megabytes: collapsing the whitespace of 3.5 MB of `< ` took 2 s on the event
 * loop), and a tag is `<` up to the next `>` with no `<` in between (`<[^>]*>` rescanned the rest
 * of the field from every `<` without a `>` after it).
 */
export function plainText(value: unknown): string {
  if (typeof value !== 'string') return '';
  const text = value
    .slice(0, MAX_FIELD_INPUT)
    .replace(/<[^<>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*|#39);/gi, (match, entity: string) => {
      const lower = entity.toLowerCase();
      if (lower in ENTITIES) return ENTITIES[lower] ?? match;
      const code = lower.startsWith('#x')
        ? Number.parseInt(lower.slice(2), 16)
        : lower.startsWith('#')
          ? Number(lower.slice(1))
          : Number.NaN;
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    })
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= MAX_FIELD_LENGTH) return text;
  const end =
    (text.charCodeAt(MAX_FIELD_LENGTH - 2) & 0xfc00) === 0xd800 ? MAX_FIELD_LENGTH - 2 : MAX_FIELD_LENGTH - 1;
  return `${text.slice(0, end)}…`;
}

/** The array at `path` in a provider body, or a `malformed` error naming the path. */
function arrayAt(body: unknown, path: readonly string[], displayName: string): unknown[] {
  let current: unknown = body;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) {
      current = undefined;
      break;
    }
    current = (current as Record<string, unknown>)[key];
  }
  if (!Array.isArray(current)) {
    throw new SearchProviderError(
      'malformed',
      `${displayName} sent a malformed response (no ${path.join('.')} array)`,
    );
  }
  return current;
}

/**
 * Builds a normalised result from provider fields; undefined when the item has no usable http(s)
 * URL (so one odd item does not fail the whole search).
 */
function normaliseResult(fields: {
  title: unknown;
  url: unknown;
  snippet: unknown;
  publishedDate?: unknown;
}): WebSearchResult | undefined {
  if (typeof fields.url !== 'string') return undefined;
  try {
    const parsed = new URL(fields.url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  } catch {
    return undefined;
  }
  const published = typeof fields.publishedDate === 'string' ? fields.publishedDate.trim() : '';
  return {
    title: plainText(fields.title) || fields.url,
    url: fields.url,
    snippet: plainText(fields.snippet),
    ...(published === '' ? {} : { publishedDate: published }),
  };
}

/** The names one provider gives the fields of a result item, e.g. Tavily's `published_date`. */
export type ResultFieldNames = Record<keyof WebSearchResult, string>;

/**
 * The first `count` normalised results from the item array at `path` in a provider body, each
 * item read through the provider's field names.
 *
 * Contract: throws a `malformed` `SearchProviderError` naming the path when there is no array
 * there; an item without a usable http(s) URL is dropped, not an error.
 */
export function resultsAt(
  body: unknown,
  path: readonly string[],
  names: ResultFieldNames,
  count: number,
  displayName: string,
): WebSearchResult[] {
  return arrayAt(body, path, displayName)
    .map((item) => {
      const fields = (item ?? {}) as Record<string, unknown>;
      return normaliseResult({
        title: fields[names.title],
        url: fields[names.url],
        snippet: fields[names.snippet],
        publishedDate: fields[names.publishedDate],
      });
    })
    .filter((result): result is WebSearchResult => result !== undefined)
    .slice(0, count);
}
