// The daemon's HTTP API as the benchmarks call it: JSON in and out, and the turn records paged through.

/** The socket errors after which a `GET` is sent again (`daemonJson`). */
const RESENT_AFTER = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** The socket error's code under a failed `fetch` (its `cause`), if any. */
function socketErrorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/**
 * A JSON request to a daemon's API; rejects on a status other than `expect`.
 *
 * A `GET` whose connection was reset is sent again, twice at most: `fetch` keeps connections alive,
 * and one the daemon closed after 5 s idle (Node's `keepAliveTimeout`) may be reused before this
 * process has read that it closed, when its own event loop is busy (reading a stream, serving the
 * fake model). A `POST` is never sent again: it may have started a turn.
 */
export async function daemonJson<T>(
  url: string,
  init: { method?: string; body?: unknown; expect?: number } = {},
): Promise<T> {
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  let response: Response;
  for (let attempt = 1; ; attempt += 1) {
    try {
      response = await fetch(url, {
        method,
        ...(init.body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }),
      });
      break;
    } catch (error) {
      const code = socketErrorCode(error);
      if (method !== 'GET' || attempt === 3 || code === undefined || !RESENT_AFTER.has(code)) throw error;
    }
  }
  const text = await response.text();
  if (response.status !== (init.expect ?? 200)) {
    throw new Error(`${method} ${url}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as T;
}

/** A turn record as `GET /v1/turns` answers it (the fields the benchmarks read). */
export interface TurnRecord {
  id: string;
  status: string;
  createdAt: string;
  endedAt?: string;
  iterations: number;
  error?: string;
}

/** Every recorded turn of the daemon's agent, paging through `GET /v1/turns` 100 at a time. */
export async function listTurns(url: string): Promise<TurnRecord[]> {
  const turns: TurnRecord[] = [];
  let cursor: string | undefined;
  do {
    const page: { turns: TurnRecord[]; nextCursor?: string } = await daemonJson(
      `${url}/v1/turns?limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    turns.push(...page.turns);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return turns;
}
