import createClient, { type Middleware } from 'openapi-fetch';
// The daemon's API types, generated at build time from its committed OpenAPI document
// (apps/worker/openapi.json, kept equal to what the daemon serves by the worker's openapi-document
// test) into src/api/openapi-types.ts by `pnpm run generate`. Nothing of the worker is bundled.
import type { components, paths } from './openapi-types';

export type { components, paths };
/** One schema of the daemon's API, by its name in the OpenAPI document. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

// The token lives in this tab's session storage: never in a URL, gone when the tab closes.
const TOKEN_KEY = 'switchyard.token';

/** The token this tab signs in with, if any. */
export function readToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

/** Keeps `token` for this tab (undefined forgets it). */
export function storeToken(token: string | undefined): void {
  if (token === undefined) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** The headers every request to the daemon carries. */
export function authHeaders(): Record<string, string> {
  const token = readToken();
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

const withToken: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(authHeaders())) request.headers.set(name, value);
    return request;
  },
};

/** The daemon's HTTP API, typed from its OpenAPI document, on the page's own origin. */
export const api = createClient<paths>({ baseUrl: location.origin });
api.use(withToken);

/** An error answer of the daemon: `{ error: { code, message, fields? } }` and its status. */
export class ApiError extends Error {
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The error code (`unauthorized`, `invalid_request`, ...). */
    readonly code: string,
    message: string,
    /** The paths of the fields at fault in a 400 (`tasks[1].dependsOn`); `message` says what is wrong with each. */
    readonly fields?: string[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * The data of an openapi-fetch result, or throws its error as an `ApiError`.
 *
 * Contract: resolves to `data` for a 2xx answer; rejects with `ApiError` otherwise.
 */
export async function unwrap<Data>(
  pending: Promise<{ data?: Data; error?: unknown; response: Response }>,
): Promise<Data> {
  const { data, error, response } = await pending;
  if (response.ok && data !== undefined) return data;
  const body = (error ?? {}) as { error?: { code?: string; message?: string; fields?: unknown } };
  throw new ApiError(
    response.status,
    body.error?.code ?? 'http_error',
    body.error?.message ?? `the daemon answered ${response.status}`,
    Array.isArray(body.error?.fields)
      ? body.error.fields.filter((field): field is string => typeof field === 'string')
      : undefined,
  );
}
