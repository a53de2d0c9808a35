import type { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import { HttpError } from './http-error';
import {
  type ApiBindings,
  idRoute,
  jsonResponse,
  listRoute,
  NO_STORE,
  type RouteText,
  type SharedErrorRef,
} from './route-builders';

// How the resources' sub-apps register the routes every resource has in the same form (a list, a
// read by id) and refuse the methods their paths do not take; `route-builders` describes the routes.

/**
 * Registers on `app` the `GET` of one resource named by the `{id}` in its path: 200 with what `find`
 * gives (`ok` describes it), or the 404 `notFound` that `find` throws (see `found`).
 */
export function registerGetById<S extends z.ZodType>(
  app: OpenAPIHono<ApiBindings>,
  text: RouteText,
  notFound: SharedErrorRef,
  ok: { description: string; schema: S },
  find: (id: string) => Promise<z.input<S>>,
): void {
  app.openapi(idRoute('get', text, notFound, { 200: jsonResponse(ok.description, ok.schema) }), async (c) =>
    c.json(await find(c.req.valid('param').id), 200, NO_STORE),
  );
}

/**
 * Registers on `app` the `GET` of a list (`listRoute`) narrowed by `query`: 200 with what `list`
 * gives for the checked query (`ok` describes it), or 400 for a bad query (or what `list` throws).
 */
export function registerList<Q extends z.ZodObject, S extends z.ZodType>(
  app: OpenAPIHono<ApiBindings>,
  text: RouteText,
  query: Q,
  ok: { description: string; schema: S },
  list: (query: z.output<Q>) => Promise<z.input<S>>,
): void {
  app.openapi(listRoute(text, query, jsonResponse(ok.description, ok.schema)), async (c) => {
    // The route checked the query against `Q`; Hono cannot name a generic route's targets.
    const checked = c.req.valid('query' as never) as z.output<Q>;
    return c.json(await list(checked), 200, NO_STORE);
  });
}

/**
 * Answers another method on each of `paths` (Hono's `:id` form) with 405 naming the methods it
 * takes (`Allow`). Registered after the paths' own routes.
 */
export function refuseOtherMethods(
  app: Hono<ApiBindings>,
  paths: ReadonlyArray<readonly [path: string, allowed: readonly string[]]>,
): void {
  for (const [path, allowed] of paths) {
    app.all(path, () => {
      throw new HttpError(405, 'method_not_allowed', `use ${allowed.join(' or ')}`, undefined, {
        allow: allowed.join(', '),
      });
    });
  }
}
