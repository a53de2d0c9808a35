import type { OpenAPIHono, z } from '@hono/zod-openapi';
import type { IdempotentOperation, StoredAnswer } from '@switchyard/control-plane';
import type { Context } from 'hono';
import { readIdempotencyKey, requestFingerprint } from '../idempotency-key-header';
import { type IdempotentStartOutcome, startIdempotently } from '../idempotent-start';
import type { DaemonHttpApiOptions } from './daemon-http-api-options';
import { HttpError } from './http-error';
import { type ApiBindings, NO_STORE, type RouteText, startRouteOf } from './route-builders';

/** What a `POST` that creates something asks of `answerCreate`. */
export interface CreateRequest {
  /** The agent it creates for: keys are scoped by agent and operation. */
  agent: string;
  /** The route's operation: keys are scoped by it. */
  operation: IdempotentOperation;
  /** The id a key's first claim chooses for what it creates (kept with the claim). */
  newResourceId(): string;
  /**
   * Creates it and gives the answer to send (and to keep for the key): under `resourceId` when a
   * key's claim chose one, `takenOver` when the claim is continued from a process that died or is slow.
   */
  create(resourceId: string | undefined, takenOver: boolean): Promise<StoredAnswer>;
}

/** How a key's claim that gives no answer is refused: still being answered, or used with another body. */
const KEY_REFUSALS = {
  'in-progress': {
    status: 409,
    code: 'idempotency_key_in_use',
    message: 'Idempotency-Key: a request with this key is still being answered; send it again after 1 s',
    headers: { 'retry-after': '1' },
  },
  mismatch: {
    status: 422,
    code: 'idempotency_key_reused',
    message: 'Idempotency-Key: this key was used with another request body; a new request needs a new key',
    headers: {},
  },
} as const;

/** The request's `Idempotency-Key`, or undefined without one; a bad one is a 400 naming the header. */
function idempotencyKeyOf(c: Context): string | undefined {
  const header = readIdempotencyKey(c.req.header('idempotency-key'));
  if (header.status === 'invalid') {
    throw new HttpError(400, 'invalid_header', header.message, ['Idempotency-Key']);
  }
  return header.status === 'valid' ? header.key : undefined;
}

/**
 * Answers a `POST` that creates something: `create(undefined)` at once without an
 * `Idempotency-Key`; with one, through the key's claim (`startIdempotently`), shared by every
 * process on the database.
 *
 * Contract: a retry with the same key and body gets the first answer again (status, headers and
 * body as first sent); while the first is still being made, 409 `idempotency_key_in_use` with
 * `Retry-After`; the key with another body, 422 `idempotency_key_reused`; a key that is not one, 400
 * naming `Idempotency-Key`. The body's fingerprint is the digest of its bytes exactly as sent.
 */
export async function answerCreate(
  c: Context,
  options: Pick<DaemonHttpApiOptions, 'turns' | 'controlPlane' | 'log'>,
  request: CreateRequest,
): Promise<Response> {
  const key = idempotencyKeyOf(c);
  const outcome: IdempotentStartOutcome =
    key === undefined
      ? { kind: 'answer', answer: await request.create(undefined, false), replayed: false }
      : await startIdempotently({
          store: options.controlPlane.idempotency,
          agentId: request.agent,
          operation: request.operation,
          key,
          fingerprint: requestFingerprint(await c.req.arrayBuffer()),
          workerId: options.turns.workerId,
          othersAreGone: options.controlPlane.kind === 'pglite',
          newResourceId: request.newResourceId,
          create: request.create,
          ...(options.log === undefined ? {} : { log: options.log }),
        });
  if (outcome.kind !== 'answer') {
    const refusal = KEY_REFUSALS[outcome.kind];
    throw new HttpError(refusal.status, refusal.code, refusal.message, ['Idempotency-Key'], refusal.headers);
  }
  const { answer } = outcome;
  return c.body(answer.body, answer.status as 202, {
    ...NO_STORE,
    'content-type': 'application/json',
    ...answer.headers,
  });
}

/** A `POST` that starts something, as `registerStartRoute` registers it (see `startRouteOf`). */
export interface StartRoute<B extends z.ZodType, S extends z.ZodType> {
  /** What the route says of itself in the document. */
  text: RouteText;
  /** The JSON body it takes. */
  body: B;
  /** Its answer once started: 201 or 202, with `Location` naming what it started. */
  started: { status: 201 | 202; description: string; schema: S };
  /** When it answers 503 with `Retry-After` (over the bound of waiting work, and what else). */
  unavailable: string;
  /** When it answers 429 with `Retry-After` (an agent's hourly limit), if it ever does. */
  rateLimited?: string;
}

/**
 * Registers on `app` a `POST` that starts something once per `Idempotency-Key`: `route` describes it
 * in the document, `answerCreate` answers it with the `CreateRequest` that `request` makes of the
 * checked body (or the error `request` throws).
 */
export function registerStartRoute<B extends z.ZodType, S extends z.ZodType>(
  app: OpenAPIHono<ApiBindings>,
  options: Pick<DaemonHttpApiOptions, 'turns' | 'controlPlane' | 'log'>,
  route: StartRoute<B, S>,
  request: (body: z.output<B>) => CreateRequest,
): void {
  const { text, body, started, unavailable, rateLimited } = route;
  app.openapi(startRouteOf(text, body, started, unavailable, rateLimited), async (c) => {
    // The route checked the body against `B`; Hono cannot name a generic route's targets.
    const checked = c.req.valid('json' as never) as z.output<B>;
    return answerCreate(c, options, request(checked)) as never;
  });
}
