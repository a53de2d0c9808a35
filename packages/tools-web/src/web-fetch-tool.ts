import { type AgentToolResult, defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import type { buildConnector } from 'undici';
import { z } from 'zod';
import { WebToolsConfigError } from './errors/web-tools-config-error';
import { FetchFailure } from './fetch/fetch-failure';
import { type FetchLimits, fetchPage } from './fetch/fetch-page';
import { htmlToMarkdown } from './fetch/html-to-markdown';
import { formatSize, truncate } from './format-size';
import { compileGuardPolicy, type GuardOptions } from './guard/guard-policy';
import { neutraliseMarkers, UNTRUSTED_NOTICE, wrapUntrusted } from './untrusted-content';

/** Options of `web_fetch` (`createWebTools({ fetch: { ... } })`). */
export interface WebFetchOptions extends GuardOptions {
  /** Whole-fetch time limit, redirects and body included. Default 30 000 ms. */
  timeoutMs?: number;
  /** Body size limit in bytes, counted after decompression. Default 5 MB (5 242 880). */
  maxBodyBytes?: number;
  /** Redirects followed by hand, each checked. Default 5. */
  maxRedirects?: number;
  /** Characters returned per call when the model gives no `max_length`. Default 20 000. */
  defaultMaxLength?: number;
  /** The User-Agent header sent. Default `Switchyard-web_fetch/0.1 (+https://github.com/switchyard)`. */
  userAgent?: string;
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
  /** Why the fetch failed, when it did. */
  failure?: FetchFailure['kind'];
}

/** The defaults, as the README states them. */
export const WEB_FETCH_DEFAULTS = {
  timeoutMs: 30_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  defaultMaxLength: 20_000,
  userAgent: 'Switchyard-web_fetch/0.1',
} as const;

const MAX_LENGTH_CAP = 100_000;

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

function positiveInteger(value: unknown, field: string, fallback: number, minimum = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    throw new WebToolsConfigError({
      field,
      message: `must be an integer >= ${minimum}, got ${String(value)}`,
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

/** Backs off a slice end so a surrogate pair is never split. */
function safeEnd(text: string, end: number): number {
  if (end >= text.length || end <= 0) return Math.min(end, text.length);
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
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
      const startIndex = start_index ?? 0;
      const maxLength = Math.min(max_length ?? defaultMaxLength, MAX_LENGTH_CAP);
      let page: Awaited<ReturnType<typeof fetchPage>>;
      try {
        page = await fetchPage(url.trim(), {
          policy,
          limits,
          signal: context.signal,
          connector: internals.connector,
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
      let title: string | undefined;
      let body: string;
      if (page.kind === 'html') {
        const converted = htmlToMarkdown(page.text, page.url);
        title = converted.title;
        body = converted.markdown;
      } else if (page.kind === 'json') {
        try {
          body = JSON.stringify(JSON.parse(page.text), null, 2);
        } catch {
          body = page.text;
        }
      } else {
        body = page.text;
      }
      body = neutraliseMarkers(body);
      const details: WebFetchDetails = {
        url,
        finalUrl: page.url,
        redirects: page.redirects,
        status: page.status,
        mediaType: page.mediaType,
        bytes: page.bytes,
        totalLength: body.length,
        ...(title === undefined ? {} : { title }),
      };
      if (startIndex > 0 && startIndex >= body.length) {
        return {
          content: `web_fetch: start_index ${startIndex} is past the end of ${page.url} (${body.length} characters).`,
          details: { ...details, startIndex, endIndex: startIndex },
          isError: true,
        };
      }
      const endIndex = safeEnd(body, startIndex + maxLength);
      const slice = body.slice(startIndex, endIndex);
      const header = [
        `Fetched ${page.url} (${page.mediaType}, ${formatSize(page.bytes)})` +
          (page.redirects.length > 0
            ? ` after ${page.redirects.length} redirect(s) from ${page.requestedUrl}`
            : ''),
        ...(title === undefined ? [] : [`Title: ${neutraliseMarkers(title)}`]),
        UNTRUSTED_NOTICE,
      ].join('\n');
      const footer =
        endIndex < body.length
          ? `\n[Showing characters ${startIndex}-${endIndex} of ${body.length}. Call web_fetch with start_index=${endIndex} to read on.]`
          : startIndex > 0
            ? `\n[Showing characters ${startIndex}-${endIndex} of ${body.length}: the end of the content.]`
            : '';
      return {
        content: `${header}\n${wrapUntrusted(page.url, slice)}${footer}`,
        details: { ...details, startIndex, endIndex },
      };
    },
  });
}
