import { ApiError, authHeaders } from '../api/client';

/**
 * GETs a JSON answer of the daemon with the tab's token, for routes the typed client does not know
 * yet (the schedules and tools routes land on the API at the same time as these pages).
 *
 * Contract: resolves to the parsed body of a 2xx answer; rejects with `ApiError` otherwise.
 */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json', ...authHeaders() }, signal });
  const body = (await response.json().catch(() => ({}))) as {
    error?: { code?: string; message?: string };
  };
  if (!response.ok) {
    throw new ApiError(
      response.status,
      body.error?.code ?? 'http_error',
      body.error?.message ?? `the daemon answered ${response.status}`,
    );
  }
  return body as T;
}
