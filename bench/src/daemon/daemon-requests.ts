// The daemon's HTTP API as the benchmarks call it: JSON in and out, and the turn records paged through.

/** A JSON request to a daemon's API; rejects on a status other than `expect`. */
export async function daemonJson<T>(
  url: string,
  init: { method?: string; body?: unknown; expect?: number } = {},
): Promise<T> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    ...(init.body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  if (response.status !== (init.expect ?? 200)) {
    throw new Error(`${init.method ?? 'GET'} ${url}: HTTP ${response.status}: ${text.slice(0, 300)}`);
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
