/** How a response body is handled: converted from HTML, or passed through as text or JSON. */
export type ContentKind = 'html' | 'text' | 'json';

/** The media type and charset of a `Content-Type` header. */
export interface ParsedContentType {
  /** Lower-case `type/subtype`, or '' when the header is missing. */
  mediaType: string;
  /** The `charset` parameter, lower-case, when given. */
  charset?: string;
}

/** Parses a `Content-Type` header value. */
export function parseContentType(header: string | null): ParsedContentType {
  if (header === null) return { mediaType: '' };
  const [type = '', ...parameters] = header.split(';');
  const charset = parameters
    .map((parameter) => parameter.trim().split('='))
    .find(([name]) => name?.trim().toLowerCase() === 'charset')?.[1]
    ?.trim()
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase();
  return { mediaType: type.trim().toLowerCase(), ...(charset ? { charset } : {}) };
}

/**
 * Maps a media type to how it is handled: HTML (`text/html`, `application/xhtml+xml`), JSON
 * (`application/json`, `*+json`) and any other `text/*`. Everything else is unsupported (undefined).
 */
export function contentKind(mediaType: string): ContentKind | undefined {
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (
    mediaType === 'application/json' ||
    mediaType === 'text/json' ||
    /^application\/[\w.+-]+\+json$/.test(mediaType)
  ) {
    return 'json';
  }
  if (/^text\/[\w.+-]+$/.test(mediaType)) return 'text';
  return undefined;
}
