import { type AgentToolResult, defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import type { buildConnector } from 'undici';
import { z } from 'zod';
import { WebToolsConfigError } from './errors/web-tools-config-error';
import { extraHeaders } from './fetch/extra-headers';
import { FetchFailure } from './fetch/fetch-failure';
import { type FetchedPage, type FetchLimits, fetchPage } from './fetch/fetch-page';
import { renderFetchedPage } from './fetch/render-fetched-page';
import type { RenderFormat } from './fetch/render-page';
import { formatSize, truncate } from './format-size';
import { compileGuardPolicy, type GuardOptions, type GuardPolicy } from './guard/guard-policy';
import { pageResult, renderFailureResult } from './web-fetch-result';

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
  const { policy, limits, conversionTimeoutMs, defaultMaxLength } = resolveWebFetchSettings(options);
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
      const startedAt = performance.now();
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
      const { outcome, conversionFallback } = await renderFetchedPage(page, {
        startIndex,
        maxLength,
        timeoutMs: limits.timeoutMs,
        startedAt,
        conversionTimeoutMs,
        signal: context.signal,
      });
      if (!outcome.ok) {
        if (context.signal.aborted) throw context.signal.reason;
        return renderFailureResult(url, page, outcome, conversionFallback, limits.timeoutMs);
      }
      const fallback = conversionFallback ?? outcome.page.fallbackReason;
      return pageResult(url, page, outcome.page, fallback, startIndex, context.maxResultBytes);
    },
  });
}

/**
 * The options checked, with their defaults.
 *
 * Contract: throws `WebToolsConfigError` naming the field (`fetch.timeoutMs`, ...) for a bad value.
 */
function resolveWebFetchSettings(options: WebFetchOptions): {
  policy: GuardPolicy;
  limits: FetchLimits;
  conversionTimeoutMs: number;
  defaultMaxLength: number;
} {
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
  return {
    policy,
    limits,
    conversionTimeoutMs: positiveInteger(
      options.conversionTimeoutMs,
      `${prefix}conversionTimeoutMs`,
      WEB_FETCH_DEFAULTS.conversionTimeoutMs,
    ),
    defaultMaxLength: positiveInteger(
      options.defaultMaxLength,
      `${prefix}defaultMaxLength`,
      WEB_FETCH_DEFAULTS.defaultMaxLength,
    ),
  };
}
