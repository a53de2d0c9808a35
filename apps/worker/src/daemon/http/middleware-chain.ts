import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { httpTraceMiddleware } from '../../telemetry/http-trace-middleware';
import { checkBearerToken } from '../check-bearer-token';
import type { ConsoleSite } from '../console-files';
import type { EventLoopShare } from '../event-loop-share';
import type { LoadShedder } from '../load-shedder';
import { DEFAULT_BODY_TIMEOUT_MS } from '../memory-limits';
import { limitBody } from './bounded-body';
import { closeUnreadBody } from './close-unread-body';
import { isConsolePath } from './console/console-paths';
import type { DaemonHttpApiOptions } from './daemon-http-api-options';
import { HttpError } from './http-error';
import type { ApiBindings } from './route-builders';

/** What the middleware chain reads of the API's options. */
export type MiddlewareChainOptions = Pick<
  DaemonHttpApiOptions,
  'shedder' | 'checkRequest' | 'token' | 'readToken' | 'maxBodyBytes' | 'bodyTimeoutMs'
> & {
  /** The event loop's share a request that starts work waits for (`DaemonTurns.share`). */
  turns: { share: Pick<EventLoopShare, 'inPlace'> };
  /** The console's files: a `GET` of one is never shed and needs no token. */
  site: ConsoleSite;
};

const isRead = (c: Context) => c.req.method === 'GET' || c.req.method === 'HEAD';

/** A request that starts a turn or a workflow. */
const startsWork = (c: Context) =>
  c.req.method === 'POST' && (c.req.path === '/v1/turns' || c.req.path === '/v1/workflows');

/** The admission of each request under way, for the body limit: it reads the body uncounted. */
const admissions = new WeakMap<IncomingMessage, { awaitClient<T>(waiting: Promise<T>): Promise<T> }>();

/** While a request's body arrives, the request waits on its client and is not counted (`awaitClient`). */
function awaitClient<T>(incoming: IncomingMessage, waiting: Promise<T>): Promise<T> {
  return admissions.get(incoming)?.awaitClient(waiting) ?? waiting;
}

/**
 * Load shedding comes before everything, tracing included: over the bound a request costs only its
 * 503, and the process takes on no more work. The connection is closed after it, so a burst of
 * refused clients gives its file descriptors back at once. /healthz and the console's files are
 * always answered.
 */
function shedLoad(shedder: LoadShedder, site: ConsoleSite): MiddlewareHandler<ApiBindings> {
  return async (c, next) => {
    if (c.req.path === '/healthz' || (isRead(c) && isConsolePath(c.req.path, site))) return next();
    const admission = shedder.admit({ startsWork: startsWork(c) });
    const incoming = c.env?.incoming as IncomingMessage | undefined;
    if (admission.admitted && incoming !== undefined) admissions.set(incoming, admission);
    if (!admission.admitted) {
      throw new HttpError(
        503,
        'overloaded',
        `${admission.reason}: nothing was done; send it again after ${admission.retryAfterSeconds} s`,
        undefined,
        { 'retry-after': String(admission.retryAfterSeconds), connection: 'close' },
      );
    }
    try {
      await next();
    } finally {
      // An event stream counts until its response is under way, not for as long as it is open.
      admission.done();
    }
  };
}

/**
 * A request that starts work runs where it was read while this turn of the event loop has run such
 * requests for under 10 ms (`EventLoopShare.inPlace`), and past that waits for its share, in line
 * with the turns' steps: a burst of hundreds of `POST`s read in one poll phase no longer holds the
 * loop for all of them, and `/healthz`, reads and the running turns are served between the shares.
 * After the request guard and the tokens, so a refusal costs no wait; inside the request's span.
 */
function shareLoop(turns: MiddlewareChainOptions['turns']): MiddlewareHandler<ApiBindings> {
  return async (c, next) => {
    const waiting = startsWork(c) ? turns.share.inPlace() : undefined;
    if (waiting !== undefined) await waiting;
    await next();
  };
}

/** The request guard, before any route or token check, /healthz included. */
function guardRequest(checkRequest: MiddlewareChainOptions['checkRequest']): MiddlewareHandler<ApiBindings> {
  return async (c, next) => {
    const incoming = c.env?.incoming as IncomingMessage | undefined;
    const headers: IncomingHttpHeaders = incoming?.headers ?? Object.fromEntries(c.req.raw.headers);
    const refusal = checkRequest?.({ method: c.req.method, headers });
    if (refusal !== undefined) throw new HttpError(refusal.status, refusal.code, refusal.message);
    await next();
  };
}

/**
 * Tokens: every route but /healthz and the console's files (they hold no data: the page asks for
 * the token and sends it with each API call). The read-only token may only read.
 */
function checkTokens(options: MiddlewareChainOptions): MiddlewareHandler<ApiBindings> {
  return async (c, next) => {
    if (c.req.path === '/healthz' || options.token === undefined) return next();
    if (isRead(c) && isConsolePath(c.req.path, options.site)) return next();
    const header = c.req.header('authorization');
    if (checkBearerToken(header, options.token)) return next();
    if (options.readToken !== undefined && checkBearerToken(header, options.readToken)) {
      if (isRead(c)) return next();
      throw new HttpError(
        403,
        'read_only_token',
        'the read-only token can only GET: use the bearer token to change anything',
      );
    }
    throw new HttpError(401, 'unauthorized', 'a valid bearer token is required', undefined, {
      'www-authenticate': 'Bearer realm="switchyard"',
    });
  };
}

/**
 * Puts the API's middleware on `app`, in the order each request meets it: a body not all read when
 * its answer is sent is read for a little more, then its connection closed (`closeUnreadBody`), load
 * shedding (with a
 * `shedder`), tracing (the request's span covers every check, and a turn it starts is its child),
 * the request guard (`checkRequest`: foreign `Host`, cross-site browser requests, bodies that are not
 * JSON), the tokens, the event loop's share for a request that starts work (`shareLoop`: a refused
 * request never waits for one), and the body limit (`limitBody`: `maxBodyBytes`, a 413). Registered
 * before any route.
 */
export function useMiddlewareChain(app: OpenAPIHono<ApiBindings>, options: MiddlewareChainOptions): void {
  app.use('*', closeUnreadBody());
  if (options.shedder !== undefined) app.use('*', shedLoad(options.shedder, options.site));
  app.use('*', httpTraceMiddleware);
  app.use('*', guardRequest(options.checkRequest));
  app.use('*', checkTokens(options));
  app.use('*', shareLoop(options.turns));
  app.use(
    '*',
    limitBody(options.maxBodyBytes, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, awaitClient),
  );
}

/**
 * A body route reads its JSON once, before validation: an empty or malformed body is a 400
 * `invalid_json`. Its bytes are read first and kept: an `Idempotency-Key`'s fingerprint is their
 * digest, exactly as sent.
 */
export async function readJsonBody(c: Context, next: Next): Promise<void> {
  try {
    await c.req.arrayBuffer();
    await c.req.json();
  } catch (error) {
    if (HttpError.isInstance(error)) throw error;
    throw new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  await next();
}
