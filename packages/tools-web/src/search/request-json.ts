import { SearchProviderError } from './search-provider-error';

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Parses `Retry-After`: delay seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
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
    // Not JSON: fall through to no detail rather than echoing an HTML error page.
  }
  return '';
}

/**
 * Sends one provider request and returns its parsed JSON body.
 *
 * Contract: throws `SearchProviderError`: `unauthorized` for 401/403, `rate-limited` for 429 (with
 * `Retry-After` seconds when given), `unavailable` for 5xx, `rejected` for other non-2xx,
 * `malformed` for a body that is not JSON (or over 4 MB), `network` and `timeout` otherwise.
 */
export async function requestJson(
  displayName: string,
  url: URL,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  options: { signal: AbortSignal; timeoutMs: number },
): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.any([options.signal, timeout]) });
    text = await response.text();
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (timeout.aborted) {
      throw new SearchProviderError(
        'timeout',
        `${displayName} did not answer within ${options.timeoutMs} ms`,
      );
    }
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const reason = typeof cause?.code === 'string' ? cause.code : String(cause?.message ?? error);
    throw new SearchProviderError('network', `could not reach ${displayName} (${reason})`);
  }
  const { status } = response;
  if (status === 401 || status === 403) {
    throw new SearchProviderError(
      'unauthorized',
      `${displayName} refused the credentials or access (HTTP ${status})${errorDetail(text)}; check the search profile`,
      status,
    );
  }
  if (status === 429) {
    // Brave sends X-RateLimit-Reset ("seconds for each window") rather than Retry-After.
    const retryAfterSeconds =
      parseRetryAfter(response.headers.get('retry-after')) ??
      parseRetryAfter(response.headers.get('x-ratelimit-reset')?.split(',')[0] ?? null);
    throw new SearchProviderError(
      'rate-limited',
      `${displayName} rate limit reached (HTTP 429)${
        retryAfterSeconds === undefined ? '; try again later' : `; retry after ${retryAfterSeconds} seconds`
      }`,
      status,
      retryAfterSeconds,
    );
  }
  if (status >= 500) {
    throw new SearchProviderError(
      'unavailable',
      `${displayName} is unavailable (HTTP ${status}); try again later`,
      status,
    );
  }
  if (status < 200 || status > 299) {
    throw new SearchProviderError(
      'rejected',
      `${displayName} rejected the request (HTTP ${status})${errorDetail(text)}`,
      status,
    );
  }
  if (text.length > MAX_RESPONSE_BYTES) {
    throw new SearchProviderError('malformed', `${displayName} sent a response larger than 4 MB`, status);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SearchProviderError('malformed', `${displayName} sent a malformed response (not JSON)`, status);
  }
}
