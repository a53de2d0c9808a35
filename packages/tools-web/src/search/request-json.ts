import { readCappedBody } from '../read-capped-body';
import { startDeadline } from '../start-deadline';
import { SearchProviderError } from './search-provider-error';

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
// An error body is read only for its detail message: the first 64 KB are plenty.
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** One provider request: where and what to send; the adapter owns all of it. */
export interface ProviderRequest {
  /** The endpoint, query string included. */
  url: URL;
  /** The HTTP method. */
  method: 'GET' | 'POST';
  /** Request headers (API key, `accept`, `content-type`). */
  headers: Record<string, string>;
  /** The request body, for `POST`. */
  body?: string;
}

/** How one call is bounded and explained. */
export interface ProviderRequestOptions {
  /** The turn's signal: when it aborts, its reason is rethrown as is. */
  signal: AbortSignal;
  /** Time for the whole call: connection, headers and body. */
  timeoutMs: number;
  /** A provider-specific sentence appended to the error for an HTTP status, e.g. SearXNG's 403. */
  statusHints?: Readonly<Partial<Record<number, string>>>;
}

/**
 * Parses a `Retry-After` (or Brave `X-RateLimit-Reset`) value: delay seconds, rounded up when
 * fractional, or an HTTP date. Anything else (a negative number, a bare word) is undefined, not 0.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  const trimmed = value?.trim() ?? '';
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  // V8's Date.parse reads "-5" or "1.5" as years; a real HTTP date always names a day or month.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function retryAfterOf(headers: Headers): number | undefined {
  // Brave sends X-RateLimit-Reset ("seconds for each window", per-second window first) rather than Retry-After.
  return (
    parseRetryAfter(headers.get('retry-after')) ??
    parseRetryAfter(headers.get('x-ratelimit-reset')?.split(',')[0])
  );
}

function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const candidates = [
      (parsed.error as Record<string, unknown> | undefined)?.detail,
      (parsed.detail as Record<string, unknown> | undefined)?.error,
      parsed.detail,
      parsed.error,
      parsed.message,
    ];
    const found = candidates.find((value) => typeof value === 'string' && value.trim() !== '');
    if (typeof found === 'string') return `: ${found.slice(0, 300)}`;
  } catch {
    // Not JSON (or cut at the cap): fall through to no detail rather than echoing an HTML error page.
  }
  return '';
}

function statusError(
  displayName: string,
  status: number,
  detail: string,
  retryAfterSeconds: number | undefined,
): SearchProviderError {
  const wait =
    retryAfterSeconds === undefined ? 'try again later' : `retry after ${retryAfterSeconds} seconds`;
  if (status === 401 || status === 403) {
    return new SearchProviderError(
      'unauthorized',
      `${displayName} refused the credentials or access (HTTP ${status})${detail}; check the search profile`,
      status,
    );
  }
  if (status === 429) {
    return new SearchProviderError(
      'rate-limited',
      `${displayName} rate limit reached (HTTP 429); ${wait}`,
      status,
      retryAfterSeconds,
    );
  }
  if (status >= 500) {
    return new SearchProviderError(
      'unavailable',
      `${displayName} is unavailable (HTTP ${status})${detail}; ${wait}`,
      status,
      retryAfterSeconds,
    );
  }
  return new SearchProviderError(
    'rejected',
    `${displayName} rejected the request (HTTP ${status})${detail}`,
    status,
  );
}

/**
 * Sends one provider request and returns its parsed JSON body: the HTTP part every search adapter
 * shares, so an adapter only builds its request and maps its response shape.
 *
 * Contract: rethrows the turn's abort reason; otherwise throws `SearchProviderError`:
 * `unauthorized` for 401/403, `rate-limited` for 429 and `unavailable` for 5xx (both with the wait
 * from `Retry-After`, or Brave's `X-RateLimit-Reset`, when given), `rejected` for other non-2xx
 * (with the provider's detail message when its error body has one), `malformed` for a body that
 * is not JSON or is over 4 MB (refused from `Content-Length`, or stopped at 4 MB while reading),
 * `timeout` when the whole call outlasts `timeoutMs`, `network` otherwise. An error body is read
 * for at most 64 KB. A `statusHints` sentence is appended to the message for its status.
 */
export async function requestJson(
  displayName: string,
  request: ProviderRequest,
  options: ProviderRequestOptions,
): Promise<unknown> {
  const deadline = startDeadline(options.timeoutMs, options.signal);
  let response: Response;
  let body: { text: string; complete: boolean };
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: deadline.signal,
    });
    const ok = response.status >= 200 && response.status <= 299;
    if (ok && Number(response.headers.get('content-length')) > MAX_RESPONSE_BYTES) {
      await response.body?.cancel().catch(() => {});
      body = { text: '', complete: false };
    } else {
      const read = await readCappedBody(response.body, ok ? MAX_RESPONSE_BYTES : MAX_ERROR_BODY_BYTES);
      // UTF-8 whatever the charset, as `Response.text()` decodes.
      body = { text: new TextDecoder().decode(read.data), complete: read.complete };
    }
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (deadline.timedOut) {
      throw new SearchProviderError(
        'timeout',
        `${displayName} did not answer within ${options.timeoutMs} ms`,
      );
    }
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const reason = typeof cause?.code === 'string' ? cause.code : String(cause?.message ?? error);
    throw new SearchProviderError('network', `could not reach ${displayName} (${reason})`);
  } finally {
    deadline.clear();
  }
  const { status } = response;
  if (status < 200 || status > 299) {
    const error = statusError(displayName, status, errorDetail(body.text), retryAfterOf(response.headers));
    const hint = options.statusHints?.[status];
    if (hint === undefined) throw error;
    throw new SearchProviderError(error.kind, `${error.message}. ${hint}`, status, error.retryAfterSeconds);
  }
  if (!body.complete) {
    throw new SearchProviderError('malformed', `${displayName} sent a response larger than 4 MB`, status);
  }
  try {
    return JSON.parse(body.text) as unknown;
  } catch {
    throw new SearchProviderError('malformed', `${displayName} sent a malformed response (not JSON)`, status);
  }
}
