import type { FetchFailure } from './fetch/fetch-failure';
import type { RenderFormat } from './fetch/render-page';

/** What a `web_fetch` result carries in `details` (for logs; the model sees `content`). */
export interface WebFetchDetails {
  /** The URL the model asked for. */
  url: string;
  /** The URL the content came from, after redirects (absent when the fetch failed). */
  finalUrl?: string;
  /** Redirects followed. */
  redirects?: string[];
  /** HTTP status of the final response. */
  status?: number;
  /** Media type of the body. */
  mediaType?: string;
  /** Body bytes after decompression. */
  bytes?: number;
  /** Characters of converted content in all. */
  totalLength?: number;
  /** First character returned. */
  startIndex?: number;
  /** One past the last character returned. */
  endIndex?: number;
  /** The page title, for HTML. */
  title?: string;
  /**
   * What the body was read as: `markdown` (HTML converted), `html-text` (HTML as plain text, when
   * the conversion missed its deadline or failed), `json` or `text`.
   */
  format?: RenderFormat;
  /** Why HTML was read as plain text instead of Markdown (or JSON shown as it came), when it was. */
  conversionFallback?: string;
  /** Why the fetch failed, when it did. */
  failure?: FetchFailure['kind'] | 'render';
}
