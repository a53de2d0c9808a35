import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { answerError } from './http-error';
import { useMiddlewareChain } from './middleware-chain';
import type { ApiBindings } from './route-builders';

const TOKEN = 'write-token-0123456789abcdef';

describe('the middleware chain', () => {
  let server: Server;
  let base: string;
  /** Let go of the requests waiting for their share of the event loop. */
  let release: () => void = () => {};
  let shares = 0;
  const handled: string[] = [];

  beforeAll(async () => {
    const app = new OpenAPIHono<ApiBindings>();
    app.onError(answerError());
    useMiddlewareChain(app, {
      site: { status: 'disabled' },
      maxBodyBytes: 1_000,
      token: TOKEN,
      turns: {
        share: {
          inPlace: () => {
            shares += 1;
            return new Promise<void>((resolve) => {
              const before = release;
              release = () => {
                before();
                resolve();
              };
            });
          },
        },
      },
    });
    for (const path of ['/healthz', '/v1/turns', '/v1/workflows', '/v1/turns/turn_1/cancel']) {
      app.all(path, async (c) => {
        handled.push(`${c.req.method} ${path}`);
        return c.json({ ok: true });
      });
    }
    server = createAdaptorServer({ fetch: app.fetch }) as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const authorization = { authorization: `Bearer ${TOKEN}` };
  const get = (path: string) => fetch(`${base}${path}`, { headers: authorization });
  const post = (path: string, headers: Record<string, string> = authorization) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ prompt: 'x' }),
    });

  it(
    'holds an authorized request that starts work until its share of the event loop, and nothing else',
    { timeout: 20_000 },
    async () => {
      const turn = post('/v1/turns');
      const workflow = post('/v1/workflows');
      await vi.waitFor(() => expect(shares).toBe(2), { timeout: 20_000, interval: 10 });
      // Requests that start no work go on while the two wait.
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await get('/v1/turns')).status).toBe(200);
      expect((await post('/v1/turns/turn_1/cancel')).status).toBe(200);
      // A request refused by the tokens is answered at once and waits for no share.
      expect((await post('/v1/turns', {})).status).toBe(401);
      expect(shares).toBe(2);
      expect(handled).toEqual(['GET /healthz', 'GET /v1/turns', 'POST /v1/turns/turn_1/cancel']);
      release();
      expect((await turn).status).toBe(200);
      expect((await workflow).status).toBe(200);
      expect(handled.slice(3).sort()).toEqual(['POST /v1/turns', 'POST /v1/workflows']);
    },
  );
});
