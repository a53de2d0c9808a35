import { vi } from 'vitest';

/** What the daemon answered: the status and the JSON body (`{}` for an empty one). */
export interface DaemonAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Sends a request to the daemon's HTTP API at `url` as a script would, with `token` as its bearer
 * token: a `body` is sent as JSON in a POST.
 */
export async function requestJson(
  url: string,
  { body, token }: { body?: unknown; token?: string } = {},
): Promise<DaemonAnswer> {
  const headers = new Headers();
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  if (body !== undefined) headers.set('content-type', 'application/json');
  const response = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/**
 * Polls `check` (every 100 ms, through vitest's `vi.waitFor`) until it returns something other than
 * undefined, and returns that; fails naming `what` after `timeoutMs`.
 */
export function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await check();
      if (value === undefined) throw new Error(`timed out waiting for ${what}`);
      return value;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}
