import { type AgentToolResult, defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import type { buildConnector } from 'undici';
import { z } from 'zod';
import { WebToolsConfigError } from './errors/web-tools-config-error';
import { FetchFailure } from './fetch/fetch-failure';
import { type FetchedPage, type FetchLimits, fetchPage } from './fetch/fetch-page';
import type { RenderFormat, RenderMode } from './fetch/render-page';
import { type RenderOutcome, renderInWorker } from './fetch/render-pool';
import { formatSize, truncate } from './format-size';
import { compileGuardPolicy, type GuardOptions } from './guard/guard-policy';
import { startDeadline } from './start-deadline';
import { webContentMarker, wrapUntrusted } from './untrusted-content';

/** Options of `web_fetch` (`createWebTools({ fetch: { ... } })`). */
export interface WebFetchOptions extends GuardOptions {
  /**
   * Time limit of the whole call: every hop, the body and rendering it (Markdown conversion
   * included). Default 30 000 ms.
   */
  timeoutMs?: number;
  /**
   * Most time the Markdown conversion of HTML (and pretty-printing of JSON) may take, in a worker
   * thread, within `timeoutMs`; past it the page is read as plain text instead. Default 10 000 ms.
   */
  conversionTimeoutMs?: number;
  /**
   * Body size limit in bytes, counted after decompression. Default 5 MB (5 242 880), at most
   * 10 MiB (10 485 760).
   */
  maxBodyBytes?: number;
  /** Redirects followed by hand, each checked. Default 5. */
  maxRedirects?: number;
  /** Characters returned per call when the model gives no `max_length`. Default 20 000. */
  defaultMaxLength?: number;
  /** The User-Agent header sent. Default `Switchyard-web_fetch/0.1 (+https://github.com/switchyard)`. */
  userAgent?: string;
  /**
   * More headers for every request of a call, asked for when the call starts: a worker passes the
   * W3C `traceparent` of the running tool call's span here, so the fetch joins its trace. Names must
   * be HTTP tokens and values single-line; `user-agent` and `accept` stay the tool's own. A header
   * that breaks these rules, or a function that throws, is left out.
   */
  requestHeaders?: () => Record<string, string> | undefined;
}

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

/** The defaults, as the README states them. */
export const WEB_FETCH_DEFAULTS = {
  timeoutMs: 30_000,
  conversionTimeoutMs: 10_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  defaultMaxLength: 20_000,
  userAgent: 'Switchyard-web_fetch/0.1',
} as const;

const MAX_LENGTH_CAP = 100_000;

/**
 * The largest `maxBodyBytes`: everything the event loop does with a body is copy it (to the render
 * thread), and a render thread has a 512 MB heap; 10 MiB of HTML stays within both.
 */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Title characters shown in the marker's `title` attribute (a page controls its title). */
const MAX_TITLE_LENGTH = 300;

const webFetchSchema = z.object({
  url: z.string().describe('The http or https URL to fetch.'),
  start_index: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Character offset to start from, to read on after a truncated result. Default 0.'),
  max_length: z
    .number()
    .int()
    .min(1)
    .max(MAX_LENGTH_CAP)
    .optional()
    .describe('Most characters to return. Default 20000.'),
});

type WebFetchParams = z.output<typeof webFetchSchema>;

function positiveInteger(
  value: unknown,
  field: string,
  fallback: number,
  minimum = 1,
  maximum = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new WebToolsConfigError({
      field,
      message: `must be an integer >= ${minimum}${maximum === Number.MAX_SAFE_INTEGER ? '' : ` and <= ${maximum}`}, got ${String(value)}`,
    });
  }
  return value;
}

function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname === '/' ? '' : parsed.pathname;
    return truncate(`${parsed.host}${path}`, 80);
  } catch {
    return truncate(url, 80);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return truncate(url, 60);
  }
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

function fallbackNote(kind: FetchedPage['kind'], reason: string): string {
  return kind === 'json'
    ? `Note: this JSON could not be pretty-printed (${reason}), so it is shown as it came.`
    : `Note: this page could not be converted to Markdown (${reason}), so it is shown as plain text, without links or formatting.`;
}

// An HTTP token (RFC 9110): one character class, linear.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const OWN_HEADERS = new Set(['user-agent', 'accept', 'host', 'content-length', 'transfer-encoding']);

/** The caller's extra headers for one call, each checked; never throws. */
function extraHeaders(requestHeaders: WebFetchOptions['requestHeaders']): Record<string, string> {
  if (requestHeaders === undefined) return {};
  let given: unknown;
  try {
    given = requestHeaders();
  } catch {
    return {};
  }
  if (typeof given !== 'object' || given === null) return {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!HEADER_NAME.test(name) || OWN_HEADERS.has(name.toLowerCase())) continue;
    if (typeof value !== 'string' || value.length > 8192 || /[\r\n\0]/.test(value)) continue;
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

/**
 * Creates the `web_fetch` tool: fetches an http(s) URL through the network guard and returns its
 * readable content (HTML as Markdown, text and JSON as they are) inside untrusted-content markers,
 * a page at a time.
 *
 * Contract: throws `WebToolsConfigError` naming the field for bad options. At run time every
 * failure (refused address, too many redirects, timeout, oversized body, unsupported content type,
 * HTTP error status, network error) is an `isError` result saying what happened.
 *
 * @example
 * const webFetch = createWebFetchTool({ timeoutMs: 10_000 });
 */
export function createWebFetchTool(
  options: WebFetchOptions = {},
  internals: { connector?: buildConnector.connector } = {},
): WorkerAgentTool<WebFetchParams, WebFetchDetails> {
  const prefix = 'fetch.';
  const policy = compileGuardPolicy(options, prefix);
  const limits: FetchLimits = {
    timeoutMs: positiveInteger(options.timeoutMs, `${prefix}timeoutMs`, WEB_FETCH_DEFAULTS.timeoutMs),
    maxBodyBytes: positiveInteger(
      options.maxBodyBytes,
      `${prefix}maxBodyBytes`,
      WEB_FETCH_DEFAULTS.maxBodyBytes,
      1,
      MAX_BODY_BYTES,
    ),
    maxRedirects: positiveInteger(
      options.maxRedirects,
      `${prefix}maxRedirects`,
      WEB_FETCH_DEFAULTS.maxRedirects,
      0,
    ),
    userAgent: options.userAgent ?? WEB_FETCH_DEFAULTS.userAgent,
  };
  if (
    typeof limits.userAgent !== 'string' ||
    limits.userAgent.trim() === '' ||
    /[\r\n]/.test(limits.userAgent)
  ) {
    throw new WebToolsConfigError({
      field: `${prefix}userAgent`,
      message: 'must be a non-empty single-line string',
    });
  }
  if (options.requestHeaders !== undefined && typeof options.requestHeaders !== 'function') {
    throw new WebToolsConfigError({ field: `${prefix}requestHeaders`, message: 'must be a function' });
  }
  const conversionTimeoutMs = positiveInteger(
    options.conversionTimeoutMs,
    `${prefix}conversionTimeoutMs`,
    WEB_FETCH_DEFAULTS.conversionTimeoutMs,
  );
  const defaultMaxLength = positiveInteger(
    options.defaultMaxLength,
    `${prefix}defaultMaxLength`,
    WEB_FETCH_DEFAULTS.defaultMaxLength,
  );

  return defineWorkerTool({
    name: 'web_fetch',
    description:
      'Fetch a public web page or document by URL and return its readable content: HTML as Markdown ' +
      '(main content only), text and JSON as they are. Long content comes a page at a time: call again ' +
      'with start_index to read on. Private, local and cloud metadata addresses are refused.',
    schema: webFetchSchema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ url }) => `Fetching ${describeTarget(url)}`,
    describeCompletedActivity: ({ url }, result) =>
      result.isError || result.details?.bytes === undefined
        ? `Could not fetch ${hostOf(url)}`
        : `Fetched ${formatSize(result.details.bytes)} from ${hostOf(result.details.finalUrl ?? url)}`,
    async execute({ url, start_index, max_length }, context): Promise<AgentToolResult<WebFetchDetails>> {
      const started = performance.now();
      const startIndex = start_index ?? 0;
      const maxLength = Math.min(max_length ?? defaultMaxLength, MAX_LENGTH_CAP);
      let page: FetchedPage;
      try {
        page = await fetchPage(url.trim(), {
          policy,
          limits,
          signal: context.signal,
          connector: internals.connector,
          extraHeaders: extraHeaders(options.requestHeaders),
        });
      } catch (error) {
        if (!FetchFailure.isInstance(error)) throw error;
        if (error.kind === 'aborted' && context.signal.aborted) throw context.signal.reason;
        return {
          content: `web_fetch failed: ${error.message}`,
          details: { url, failure: error.kind },
          isError: true,
        };
      }

      // Rendering runs in a worker thread under what is left of timeoutMs, the conversion itself
      // under conversionTimeoutMs; HTML that misses it (or fails) is read again as plain text.
      const remaining = limits.timeoutMs - (performance.now() - started);
      const deadline = startDeadline(Math.max(1, Math.ceil(remaining)), context.signal);
      const render = (mode: RenderMode, budgetMs: number) =>
        renderInWorker(
          {
            kind: page.kind,
            mode,
            body: page.body,
            ...(page.charset === undefined ? {} : { charset: page.charset }),
            url: page.url,
            startIndex,
            maxLength,
          },
          { conversionTimeoutMs: Math.max(1, Math.ceil(budgetMs)), signal: deadline.signal },
        );
      let outcome: RenderOutcome;
      let conversionFallback: string | undefined;
      try {
        outcome = await render('full', conversionTimeoutMs);
        if (!outcome.ok && outcome.failure !== 'aborted' && page.kind !== 'text') {
          conversionFallback = outcome.message;
          outcome = await render('plain', limits.timeoutMs - (performance.now() - started));
        }
      } finally {
        deadline.clear();
      }
      const fetched: WebFetchDetails = {
        url,
        finalUrl: page.url,
        redirects: page.redirects,
        status: page.status,
        mediaType: page.mediaType,
        bytes: page.bytes,
      };
      if (!outcome.ok) {
        if (context.signal.aborted) throw context.signal.reason;
        const timedOut = outcome.failure === 'aborted' || outcome.failure === 'conversion-timeout';
        return {
          content: timedOut
            ? `web_fetch failed: ${page.url} (${formatSize(page.bytes)} of ${page.mediaType}) could not be read within the ${limits.timeoutMs} ms limit${conversionFallback === undefined ? '' : ` (${conversionFallback}, and reading it as plain text did not finish either)`}. Try another page, or a plain-text or smaller version of this one.`
            : `web_fetch failed: ${page.url} (${formatSize(page.bytes)} of ${page.mediaType}) could not be read: ${outcome.message}.`,
          details: { ...fetched, failure: timedOut ? 'timeout' : 'render' },
          isError: true,
        };
      }
      const rendered = outcome.page;
      conversionFallback ??= rendered.fallbackReason;
      const title =
        rendered.title === undefined
          ? undefined
          : truncate(rendered.title.replace(/\s+/g, ' '), MAX_TITLE_LENGTH);
      const details: WebFetchDetails = {
        ...fetched,
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
      let slice = rendered.slice;
      let endIndex = rendered.endIndex;
      const build = () => `${header}\n${wrapUntrusted(marker, page.url, slice, title)}${footerFor(endIndex)}`;
      let content = build();
      const budget = context.maxResultBytes;
      if (budget !== undefined && Buffer.byteLength(content, 'utf8') > budget) {
        // The loop would cut this result from the middle; a shorter page keeps start_index exact.
        // The footer's worst case is its "read on" form with the largest numbers it can hold.
        const fixed =
          Buffer.byteLength(`${header}\n${wrapUntrusted(marker, page.url, '', title)}`, 'utf8') +
          Buffer.byteLength(footerFor(Math.max(0, total - 1)), 'utf8');
        // At least one character, so that calling again always moves on.
        const shorter = prefixWithinBytes(slice, Math.max(0, budget - fixed));
        slice = shorter === '' ? slice.slice(0, (slice.charCodeAt(0) & 0xfc00) === 0xd800 ? 2 : 1) : shorter;
        endIndex = startIndex + slice.length;
        content = build();
      }
      return {
        content,
        details: { ...details, startIndex, endIndex },
      };
    },
  });
}
