import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerConfigError } from '../config/worker-config-error';
import { rawRequest } from './__fixtures__/http-client';
import {
  type CheckRequest,
  type DaemonListener,
  listenApi,
  listenHealth,
  shutDownServer,
} from './daemon-listeners';

// The daemon's listeners over real sockets: the app is served behind the request guard of the port
// it bound (port 0 picks one), and a health port that cannot be bound is refused naming its field.

/** An app that answers 200 `ok`, or the guard's refusal. */
function guardedApp(checkRequest: CheckRequest): Hono {
  const app = new Hono();
  app.all('*', (c) => {
    const refusal = checkRequest({ method: c.req.method, headers: Object.fromEntries(c.req.raw.headers) });
    return refusal === undefined ? c.text('ok') : c.text(refusal.code, refusal.status);
  });
  return app;
}

describe('the daemon’s listeners', () => {
  const opened: Server[] = [];

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((server) => shutDownServer(server)));
  });

  const listening = (listener: DaemonListener): DaemonListener => {
    opened.push(listener.server);
    return listener;
  };

  it('serves the API on the port it bound, answering its own host and the allowed ones only', async () => {
    const api = listening(
      await listenApi({
        host: '127.0.0.1',
        port: 0,
        allowedHosts: ['proxy.example'],
        maxConnections: undefined,
        log: () => {},
        buildApp: guardedApp,
      }),
    );
    expect(api.port).toBeGreaterThan(0);
    expect(api.url).toBe(`http://127.0.0.1:${api.port}`);
    expect(await rawRequest(api.url, '/')).toMatchObject({ status: 200, text: 'ok' });
    expect(await rawRequest(api.url, '/', { headers: { host: 'proxy.example' } })).toMatchObject({
      status: 200,
    });
    expect(await rawRequest(api.url, '/', { headers: { host: 'evil.example' } })).toMatchObject({
      status: 421,
      text: 'misdirected_request',
    });
    // Another port on the same host is not this listener.
    expect(await rawRequest(api.url, '/', { headers: { host: `127.0.0.1:${api.port + 1}` } })).toMatchObject({
      status: 421,
    });
  });

  it('serves /healthz on a port of its own', async () => {
    const health = listening(await listenHealth({ host: '127.0.0.1', port: 0, buildApp: guardedApp }));
    expect(health.url).toBe(`http://127.0.0.1:${health.port}/healthz`);
    expect(await rawRequest(health.url, '/healthz')).toMatchObject({ status: 200, text: 'ok' });
  });

  it('refuses a health port it cannot bind, naming serve.healthPort and why', async () => {
    const taken = createServer();
    opened.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const failure = await listenHealth({ host: '127.0.0.1', port, buildApp: guardedApp }).catch(
      (error: unknown) => error,
    );
    expect(WorkerConfigError.isInstance(failure)).toBe(true);
    expect((failure as WorkerConfigError).issues).toEqual([
      { field: 'serve.healthPort', message: `cannot listen on 127.0.0.1:${port} (EADDRINUSE)` },
    ]);
  });
});
