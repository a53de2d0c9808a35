import type { HttpBindings } from '@hono/node-server';
import { createRoute, OpenAPIHono, type RouteConfig, type z } from '@hono/zod-openapi';
import { validationError } from './http-error';
import { readJsonBody } from './middleware-chain';
import { BODY_ERRORS, COMMON_ERRORS, RETRY_AFTER_HEADER, SHARED_ERRORS } from './shared-error-responses';
import { ErrorSchema, IdempotencyKeyHeaderSchema, IdParamSchema } from './shared-schemas';

// How the resources' sub-apps declare their routes: each builder gives a route the errors every
// route of its kind answers, so the document says them the same way everywhere.

/** What a request's context holds under `@hono/node-server` (absent under `app.request`). */
export type ApiBindings = { Bindings: Partial<HttpBindings> };

/** The headers of every JSON answer: nothing the API answers is cached. */
export const NO_STORE = { 'cache-control': 'no-store' } as const;

/**
 * A resource's sub-app: its request failures (bad body, query or path parameter) are thrown as the
 * API's errors (`validationError`), which the composed app answers.
 */
export function createResourceApp(): OpenAPIHono<ApiBindings> {
  return new OpenAPIHono<ApiBindings>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
}

/** A JSON response of `schema`. */
export const jsonResponse = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});

/** A required JSON request body of `schema`. */
export const jsonBody = <S extends z.ZodType>(schema: S) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** A JSON response of `schema` whose `Location` header names what it describes (a resource just made). */
export const locatedResponse = <S extends z.ZodType>(description: string, schema: S) => ({
  ...jsonResponse(description, schema),
  headers: { location: { schema: { type: 'string' as const } } },
});

/** A server-sent event stream response. */
export const eventStreamResponse = {
  description: 'The event stream',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
} as const;

/** An error response (`{ error: { code, message, fields? } }`) only one route answers. */
export const errorResponse = (description: string) => jsonResponse(description, ErrorSchema);

/** A reference to one of the shared error responses (`SHARED_ERRORS.*.ref`). */
export type SharedErrorRef = { $ref: string };

/** What a route says of itself in the document, besides its method, request and responses. */
export interface RouteText {
  /** The operation's id: clients name their calls after it. */
  operationId: string;
  /** The path, with `{id}` for the path parameter. */
  path: string;
  /** One line. */
  summary: string;
  /** More, when one line is not enough. */
  description?: string;
}

/**
 * A route behind the bearer token: it answers `responses` and the errors of every authenticated route
 * (503 when overloaded, unless `responses` says more of its 503). A route with a body reads it as
 * JSON first (`readJsonBody`): an empty or malformed body is a 400 before validation.
 */
export function authenticatedRoute<
  M extends 'get' | 'post',
  Q extends NonNullable<RouteConfig['request']>,
  R extends RouteConfig['responses'],
>(method: M, text: RouteText, request: Q, responses: R) {
  return createRoute({
    method,
    ...text,
    security: [{ bearer: [] }],
    request,
    responses: { 503: SHARED_ERRORS.overloaded.ref, ...responses, ...COMMON_ERRORS },
    middleware: request.body === undefined ? [] : [readJsonBody],
  });
}

/**
 * A `GET` of what the agents served have (a list, or the event feed), narrowed by `query`: `ok`
 * (200), or 400 for a bad query.
 */
export const listRoute = <Q extends z.ZodObject, Ok extends RouteConfig['responses'][number]>(
  text: RouteText,
  query: Q,
  ok: Ok,
) => authenticatedRoute('get', text, { query }, { 200: ok, 400: BODY_ERRORS[400] });

/**
 * A route of one resource, named by the `{id}` in its path: `responses`, or `notFound` (404) when
 * there is no such resource.
 */
export const idRoute = <M extends 'get' | 'post', R extends RouteConfig['responses']>(
  method: M,
  text: RouteText,
  notFound: SharedErrorRef,
  responses: R,
) => authenticatedRoute(method, text, { params: IdParamSchema }, { ...responses, 404: notFound });

/**
 * A `POST` that creates something from a JSON body of `body`, with an optional `Idempotency-Key`:
 * `responses`, 400 for a body that does not match it (or a bad key), 409 while a request with the
 * key is being answered, 413 for a body over the size limit, 422 for the key used with another body.
 */
export const createRouteOf = <B extends z.ZodType, R extends RouteConfig['responses']>(
  text: RouteText,
  body: B,
  responses: R,
) =>
  authenticatedRoute(
    'post',
    text,
    { body: jsonBody(body), headers: IdempotencyKeyHeaderSchema },
    { ...responses, 409: SHARED_ERRORS.keyInUse.ref, 422: SHARED_ERRORS.keyReused.ref, ...BODY_ERRORS },
  );

/**
 * A `POST` that starts work from a JSON body of `body` (a `createRouteOf`, with its `Idempotency-Key`):
 * `started.status` with what it started (`Location` names it), or 503 with `Retry-After`, for the
 * reasons `unavailable` gives (over the bound of waiting work, and whatever else stops it), and with
 * `rateLimited`, 429 with `Retry-After` for the reasons it gives.
 */
export const startRouteOf = <B extends z.ZodType, S extends z.ZodType>(
  text: RouteText,
  body: B,
  started: { status: 201 | 202; description: string; schema: S },
  unavailable: string,
  rateLimited?: string,
) =>
  createRouteOf(text, body, {
    [started.status]: locatedResponse(started.description, started.schema),
    503: { ...errorResponse(unavailable), headers: RETRY_AFTER_HEADER },
    ...(rateLimited === undefined
      ? {}
      : { 429: { ...errorResponse(rateLimited), headers: RETRY_AFTER_HEADER } }),
  });
