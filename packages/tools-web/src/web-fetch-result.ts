import type { AgentToolResult } from '@switchyard/core';
import type { FetchedPage } from './fetch/fetch-page';
import type { RenderedPage } from './fetch/render-page';
import type { RenderOutcome } from './fetch/render-pool';
import { formatSize, truncate } from './format-size';
import { webContentMarker, wrapUntrusted } from './untrusted-content';
import type { WebFetchDetails } from './web-fetch-tool';

/** Title characters shown in the marker's `title` attribute (a page controls its title). */
const MAX_TITLE_LENGTH = 300;

/** What the fetch learnt of a page, for `details`. */
export function fetchedDetails(url: string, page: FetchedPage): WebFetchDetails {
  return {
    url,
    finalUrl: page.url,
    redirects: page.redirects,
    status: page.status,
    mediaType: page.mediaType,
    bytes: page.bytes,
  };
}

/** The error result of a page fetched but not rendered: out of time, or the render thread failed. */
export function renderFailureResult(
  url: string,
  page: FetchedPage,
  outcome: Extract<RenderOutcome, { ok: false }>,
  conversionFallback: string | undefined,
  timeoutMs: number,
): AgentToolResult<WebFetchDetails> {
  const what = `web_fetch failed: ${page.url} (${formatSize(page.bytes)} of ${page.mediaType})`;
  const timedOut = outcome.failure === 'aborted' || outcome.failure === 'conversion-timeout';
  return {
    content: timedOut
      ? `${what} could not be read within the ${timeoutMs} ms limit${conversionFallback === undefined ? '' : ` (${conversionFallback}, and reading it as plain text did not finish either)`}. Try another page, or a plain-text or smaller version of this one.`
      : `${what} could not be read: ${outcome.message}.`,
    details: { ...fetchedDetails(url, page), failure: timedOut ? 'timeout' : 'render' },
    isError: true,
  };
}

/**
 * The result of a rendered page: a header saying what was fetched, the page's slice inside the
 * untrusted-content markers, and a footer saying how to read on. A result over `maxResultBytes`
 * returns a shorter slice rather than be cut by the loop, so `start_index` stays exact.
 */
export function pageResult(
  url: string,
  page: FetchedPage,
  rendered: RenderedPage,
  conversionFallback: string | undefined,
  startIndex: number,
  maxResultBytes: number | undefined,
): AgentToolResult<WebFetchDetails> {
  const title =
    rendered.title === undefined
      ? undefined
      : truncate(rendered.title.replace(/\s+/g, ' '), MAX_TITLE_LENGTH);
  const details: WebFetchDetails = {
    ...fetchedDetails(url, page),
    totalLength: rendered.totalLength,
    format: rendered.format,
    ...(title === undefined ? {} : { title }),
    ...(conversionFallback === undefined ? {} : { conversionFallback }),
  };
  const total = rendered.totalLength;
  if (startIndex > 0 && startIndex >= total) {
    return {
      content: `web_fetch: start_index ${startIndex} is past the end of ${page.url} (${total} characters).`,
      details: { ...details, startIndex, endIndex: startIndex },
      isError: true,
    };
  }
  // The page's title is its text too: it goes inside the marker (an attribute), never beside it.
  const { marker, notice } = webContentMarker();
  const header = [
    `Fetched ${page.url} (${page.mediaType}, ${formatSize(page.bytes)})` +
      (page.redirects.length > 0
        ? ` after ${page.redirects.length} redirect(s) from ${page.requestedUrl}`
        : ''),
    ...(conversionFallback === undefined ? [] : [fallbackNote(page.kind, conversionFallback)]),
    notice,
  ].join('\n');
  const footerFor = (end: number) =>
    end < total
      ? `\n[Showing characters ${startIndex}-${end} of ${total}. Call web_fetch with start_index=${end} to read on.]`
      : startIndex > 0
        ? `\n[Showing characters ${startIndex}-${end} of ${total}: the end of the content.]`
        : '';
  const build = (slice: string, end: number) =>
    `${header}\n${wrapUntrusted(marker, page.url, slice, title)}${footerFor(end)}`;
  let endIndex = rendered.endIndex;
  let content = build(rendered.slice, endIndex);
  if (maxResultBytes !== undefined && Buffer.byteLength(content, 'utf8') > maxResultBytes) {
    // The footer's worst case is its "read on" form with the largest numbers it can hold.
    const fixed =
      Buffer.byteLength(`${header}\n${wrapUntrusted(marker, page.url, '', title)}`, 'utf8') +
      Buffer.byteLength(footerFor(Math.max(0, total - 1)), 'utf8');
    const slice = shortenedSlice(rendered.slice, Math.max(0, maxResultBytes - fixed));
    endIndex = startIndex + slice.length;
    content = build(slice, endIndex);
  }
  return { content, details: { ...details, startIndex, endIndex } };
}

function fallbackNote(kind: FetchedPage['kind'], reason: string): string {
  return kind === 'json'
    ? `Note: this JSON could not be pretty-printed (${reason}), so it is shown as it came.`
    : `Note: this page could not be converted to Markdown (${reason}), so it is shown as plain text, without links or formatting.`;
}

/** The slice cut to `budget` UTF-8 bytes, but at least one character, so that calling again always moves on. */
function shortenedSlice(slice: string, budget: number): string {
  const shorter = prefixWithinBytes(slice, budget);
  if (shorter !== '') return shorter;
  return slice.slice(0, (slice.charCodeAt(0) & 0xfc00) === 0xd800 ? 2 : 1);
}

/** The longest prefix of `text` within `budget` UTF-8 bytes, never splitting a surrogate pair. */
function prefixWithinBytes(text: string, budget: number): string {
  if (Buffer.byteLength(text, 'utf8') <= budget) return text;
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    const pair = code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > budget) break;
    bytes += size;
    index += pair ? 2 : 1;
  }
  return text.slice(0, index);
}
