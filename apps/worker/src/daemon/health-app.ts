import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import type { CommandSandboxReport } from '../config/command-sandbox';
import { closeUnreadBody } from './http/close-unread-body';
import type { RequestRefusal } from './request-guard';

/** What the health listener needs from the daemon. */
export interface HealthAppOptions {
  /** The request guard of the health port: a foreign `Host` or a cross-site browser request is refused. */
  checkRequest(request: {
    method?: string | undefined;
    headers: IncomingHttpHeaders;
  }): RequestRefusal | undefined;
  /**
   * `serving`; `draining` once the daemon takes no new work; `lock-lost` once it lost the lock on its
   * embedded database (and takes no new work either).
   */
  state(): 'serving' | 'draining' | 'lock-lost';
  /** The turns running now. */
  runningTurns(): number;
  /** Whether the agents' commands run in the sandbox; absent: not reported. */
  commandSandbox?: () => CommandSandboxReport;
  /** Set while the model is the built-in scripted one: reported as `scriptedModel.summary`. */
  scriptedModel?: string;
}

type Bindings = { Bindings: Partial<HttpBindings> };

const NO_STORE = { 'cache-control': 'no-store' };

/** An error as the API answers one: `{ error: { code, message } }`, never cached. */
function fail(
  c: Context<Bindings>,
  status: 403 | 404 | 405 | 415 | 421 | 500,
  code: string,
  message: string,
  headers: Record<string, string> = {},
) {
  return c.json({ error: { code, message } }, status, { ...NO_STORE, ...headers });
}

/**
 * The app of the daemon's health listener (`serve.healthPort`): `GET` and `HEAD /healthz` only,
 * answered as the API's own `/healthz` (200 `{ status: "serving", runningTurns, sandbox }`, 503 while
 * draining or after the embedded database's lock was lost), without a token and without touching the database.
 *
 * Why a listener of its own: Node accepts one new connection per turn of the event loop on a
 * listening socket, so while a burst of new API connections waits in the API port's queue, a
 * probe's connection waits behind all of them (seconds at 500 turns posted at once). On its own
 * port the probe's connection is the only one waiting, and it is accepted in the next turn.
 *
 * Contract: errors are the API's JSON `{ error: { code, message } }`: 421 for a foreign `Host` and
 * 403 for a cross-site browser request (`checkRequest`, first), 405 with `Allow` for another method
 * on `/healthz`, 404 for any other path (nothing else of the API is served here).
 */
export function createHealthApp(options: HealthAppOptions): Hono<Bindings> {
  const app = new Hono<Bindings>();
  app.use('*', closeUnreadBody());
  app.onError((_error, c) => fail(c, 500, 'internal_error', 'internal error'));
  app.notFound((c) =>
    fail(c, 404, 'not_found', `no route for ${c.req.path}: this port answers /healthz only`),
  );
  app.use('*', async (c, next) => {
    const incoming = c.env?.incoming as IncomingMessage | undefined;
    const headers: IncomingHttpHeaders = incoming?.headers ?? Object.fromEntries(c.req.raw.headers);
    const refusal = options.checkRequest({ method: c.req.method, headers });
    if (refusal !== undefined) return fail(c, refusal.status, refusal.code, refusal.message);
    await next();
  });
  app.on(['GET', 'HEAD'], '/healthz', (c) => {
    const state = options.state();
    return c.json(
      {
        status: state,
        runningTurns: options.runningTurns(),
        ...(options.commandSandbox === undefined ? {} : { sandbox: options.commandSandbox() }),
        ...(options.scriptedModel === undefined ? {} : { scriptedModel: { summary: options.scriptedModel } }),
      },
      state === 'serving' ? 200 : 503,
      NO_STORE,
    );
  });
  app.all('/healthz', (c) => fail(c, 405, 'method_not_allowed', 'use GET or HEAD', { allow: 'GET, HEAD' }));
  return app;
}
