import { raceAbort } from '@switchyard/core/internal';
import { Agent, type buildConnector, type Response, fetch as undiciFetch } from 'undici';
import { checkUrlWithPolicy } from '../guard/check-url';
import type { GuardPolicy } from '../guard/guard-policy';
import { ConnectRefusedError, createGuardedConnector } from '../guard/guarded-connector';
import { readCappedBody } from '../read-capped-body';
import { startDeadline } from '../start-deadline';
import { type ContentKind, contentKind, parseContentType } from './content-kind';
import { FetchFailure } from './fetch-failure';

/** The caps of one fetch. */
export interface FetchLimits {
  /** Whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Body bytes after decompression. */
  maxBodyBytes: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
  /** The User-Agent header. */
  userAgent: string;
}

/** A fetched and decoded response body. */
export interface FetchedPage {
  /** The URL asked for, normalised. */
  requestedUrl: string;
  /** The URL the body came from, after redirects. */
  url: string;
  /** Every URL redirected to, in order (the last is `url`). */
  redirects: string[];
  /** HTTP status of the final response. */
  status: number;
  /** Media type of the body, e.g. `text/html`. */
  mediaType: string;
  /** How the body is handled. */
  kind: ContentKind;
  /**
   * The body's bytes, not decoded (decoding megabytes is work for the render thread, not for the
   * event loop), in a `SharedArrayBuffer` so that handing them to that thread copies nothing.
   */
  body: Uint8Array;
  /** The charset from `Content-Type`, or for HTML from a `<meta>` in its first 2 KB. */
  charset?: string;
  /** Body bytes after decompression. */
  bytes: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8';

function findCause<T>(error: unknown, test: (value: unknown) => value is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    if (test(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeNetworkError(error: unknown): string {
  let current: unknown = error;
  let message = 'network error';
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    message = typeof code === 'string' ? `${current.message} (${code})` : current.message;
    current = current.cause;
  }
  return message;
}

/** The charset a `<meta>` in the first bytes of an HTML document declares. */
function sniffHtmlCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048));
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
}

/**
 * Fetches a URL through the network guard: the URL is checked before every hop, every new
 * connection is checked again where it is made (so a name that resolves differently at connect
 * time is still refused), redirects are followed by hand, and time and body size are capped.
 * A fresh dispatcher per call keeps a socket checked for one fetch from being reused by another.
 *
 * Contract: throws `FetchFailure` (kind `refused`, `redirects`, `timeout`, `aborted`,
 * `too-large`, `content-type`, `http-status` or `network`); never connects to a refused address.
 */
export async function fetchPage(
  url: string,
  options: {
    policy: GuardPolicy;
    limits: FetchLimits;
    signal: AbortSignal;
    /** The connector under the guard; tests wrap it to record every connection attempt. */
    connector?: buildConnector.connector;
    /** Checked extra headers sent on every hop (trace context). */
    extraHeaders?: Record<string, string>;
  },
): Promise<FetchedPage> {
  const { policy, limits, signal } = options;
  const deadline = startDeadline(limits.timeoutMs, signal);
  const agent = new Agent({ connect: createGuardedConnector(policy, options.connector) });
  const redirects: string[] = [];
  let requestedUrl = url;
  let current = url;
  try {
    for (let hop = 0; ; hop += 1) {
      const check = await raceAbort(checkUrlWithPolicy(current, policy), deadline.signal);
      if (!check.ok) {
        throw new FetchFailure(
          'refused',
          hop === 0 ? `refused: ${check.reason}` : `redirect ${hop} to ${current} refused: ${check.reason}`,
          { hop, blockedUrl: current },
        );
      }
      current = check.url;
      if (hop === 0) requestedUrl = current;
      const response = await undiciFetch(current, {
        dispatcher: agent,
        redirect: 'manual',
        signal: deadline.signal,
        headers: { ...options.extraHeaders, 'user-agent': limits.userAgent, accept: ACCEPT },
      });
      const next = await redirectTarget(response, current, hop, limits.maxRedirects, redirects);
      if (next !== undefined) {
        redirects.push(next);
        current = next;
        continue;
      }
      return { requestedUrl, url: current, redirects, ...(await readResponse(response, current, limits)) };
    }
  } catch (error) {
    throw fetchFailureOf(error, current, limits, signal.aborted, deadline.timedOut);
  } finally {
    deadline.clear();
    agent.destroy().catch(() => {});
  }
}

/**
 * Where a redirect response leads, or undefined when `response` is not a redirect (its body is
 * dropped when it is one).
 *
 * Contract: throws `FetchFailure` (`redirects`) past `maxRedirects`, (`refused`) for an invalid `Location`.
 */
async function redirectTarget(
  response: Response,
  current: string,
  hop: number,
  maxRedirects: number,
  redirects: readonly string[],
): Promise<string | undefined> {
  const location = response.headers.get('location');
  if (!REDIRECT_STATUSES.has(response.status) || location === null) return undefined;
  await response.body?.cancel().catch(() => {});
  if (hop >= maxRedirects) {
    throw new FetchFailure('redirects', `stopped after ${maxRedirects} redirects (last to ${location})`, {
      redirects,
    });
  }
  try {
    return new URL(location, current).href;
  } catch {
    throw new FetchFailure('refused', `redirect to an invalid URL ${JSON.stringify(location.slice(0, 200))}`);
  }
}

/**
 * Reads the final response of a fetch: a 2xx of a media type `web_fetch` reads, its body within
 * `maxBodyBytes`.
 *
 * Contract: throws `FetchFailure` (`http-status`, `content-type` or `too-large`) otherwise, the body
 * dropped or not read further.
 */
async function readResponse(
  response: Response,
  current: string,
  limits: FetchLimits,
): Promise<Omit<FetchedPage, 'requestedUrl' | 'url' | 'redirects'>> {
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => {});
    throw new FetchFailure(
      'http-status',
      `${current} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      { status: response.status },
    );
  }
  const contentType = parseContentType(response.headers.get('content-type'));
  const kind = contentKind(contentType.mediaType);
  if (kind === undefined) {
    await response.body?.cancel().catch(() => {});
    throw new FetchFailure(
      'content-type',
      contentType.mediaType === ''
        ? `${current} sent no Content-Type; web_fetch reads only HTML, text and JSON`
        : `${current} is ${contentType.mediaType}; web_fetch reads only HTML, text/* and JSON`,
      { mediaType: contentType.mediaType },
    );
  }
  const { data, bytes, complete } = await readCappedBody(response.body, limits.maxBodyBytes, {
    shared: true,
  });
  if (!complete) {
    throw new FetchFailure(
      'too-large',
      `the response body of ${current} is larger than the ${limits.maxBodyBytes}-byte limit (counted after decompression); it was not read further`,
      { maxBodyBytes: limits.maxBodyBytes },
    );
  }
  const charset = contentType.charset ?? (kind === 'html' ? sniffHtmlCharset(data) : undefined);
  return {
    status: response.status,
    mediaType: contentType.mediaType,
    kind,
    body: data,
    ...(charset === undefined ? {} : { charset }),
    bytes,
  };
}

/** What a failed fetch of `current` is, as the `FetchFailure` the caller sees. */
function fetchFailureOf(
  error: unknown,
  current: string,
  limits: FetchLimits,
  aborted: boolean,
  timedOut: boolean,
): FetchFailure {
  if (FetchFailure.isInstance(error)) return error;
  if (aborted) return new FetchFailure('aborted', 'the fetch was cancelled');
  if (timedOut) {
    return new FetchFailure('timeout', `${current} did not finish within ${limits.timeoutMs} ms`, {
      timeoutMs: limits.timeoutMs,
    });
  }
  const refused = findCause(error, ConnectRefusedError.isInstance);
  if (refused)
    return new FetchFailure('refused', `refused at connect: ${refused.reason}`, { blockedUrl: current });
  return new FetchFailure('network', `could not fetch ${current}: ${describeNetworkError(error)}`);
}
