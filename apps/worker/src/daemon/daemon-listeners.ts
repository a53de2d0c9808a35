import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { boundConnections } from './bound-connections';
import { refuseDaemonOption } from './daemon-options';
import { createRequestGuard, type RequestRefusal } from './request-guard';

/** The HTTP API's listen backlog (see where it listens). */
const LISTEN_BACKLOG = 4096;

/** A request guard: the one of a listener is built once its port is bound (port 0 picks one). */
export type CheckRequest = ReturnType<typeof createRequestGuard>;

/** What answers a request before its listener's port is bound. */
const STARTING: CheckRequest = (): RequestRefusal => ({
  status: 421,
  code: 'misdirected_request',
  message: 'the daemon is starting',
});

/** What a listener step takes. */
export interface ListenOptions {
  /** The listen address. */
  host: string;
  /** The port; 0 picks a free one. */
  port: number;
  /** Host names the listener answers to besides its own (`serve.allowedHosts`). */
  allowedHosts?: readonly string[];
  /**
   * Builds the app served there; `checkRequest` refuses every request until the port is bound, then
   * is the request guard of the bound port.
   */
  buildApp(checkRequest: CheckRequest): { fetch: Parameters<typeof createAdaptorServer>[0]['fetch'] };
}

/** An open listener. */
export interface DaemonListener {
  /** The Node server. */
  server: Server;
  /** The bound port. */
  port: number;
  /** `http://host:port` (an IPv6 address in brackets). */
  url: string;
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Closes a server once its open connections end (a start-up that failed: no work was taken). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Closes a server and every connection it holds (the daemon stopped, its work drained). */
export function shutDownServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Builds the app with a request guard that follows the port once bound, and serves it with `server`. */
function guardedServer(options: ListenOptions): { server: Server; bind(port: number): void } {
  let checkRequest = STARTING;
  const app = options.buildApp((request) => checkRequest(request));
  return {
    server: createAdaptorServer({ fetch: app.fetch }) as Server,
    bind: (port) => {
      checkRequest = createRequestGuard({
        listenHost: options.host,
        port,
        ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      });
    },
  };
}

/**
 * Serves the HTTP API: listens with a deep accept queue, at most `maxConnections` connections open at
 * once when set (`boundConnections`); rejects when the port cannot be bound.
 */
export async function listenApi(
  options: ListenOptions & { maxConnections: number | undefined; log: (line: string) => void },
): Promise<DaemonListener> {
  const { server, bind } = guardedServer(options);
  if (options.maxConnections !== undefined) boundConnections(server, options.maxConnections, options.log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Node accepts one connection per turn of its event loop (libuv since 1.45, libuv/libuv#3696),
    // so a burst waits in the kernel's accept queue, which `listen` sizes at 511 by default. Past
    // it, a handshake whose last ACK finds the queue full is dropped and, once the kernel's SYN-ACK
    // retries run out (about a minute, tcp_synack_retries 5), the client's request is answered with
    // a reset. Measured with a plain Node server whose loop turns took 150 ms (2 cores, Linux 6,
    // somaxconn 4096): 2,000 connections at once got 733 resets at backlog 511 and none at 4096.
    // The kernel caps the backlog at net.core.somaxconn.
    server.listen({ port: options.port, host: options.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  bind(port);
  return { server, port, url: urlOf(options.host, port) };
}

/**
 * Serves `/healthz` on a port of its own (`serve.healthPort`).
 *
 * Contract: throws `WorkerConfigError` on `serve.healthPort` when the port cannot be bound.
 */
export async function listenHealth(options: ListenOptions): Promise<DaemonListener> {
  const { server, bind } = guardedServer(options);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    refuseDaemonOption(
      'serve.healthPort',
      `cannot listen on ${options.host}:${String(options.port)} (${code ?? String(error)})`,
    );
  }
  const { port } = server.address() as AddressInfo;
  bind(port);
  return { server, port, url: `${urlOf(options.host, port)}/healthz` };
}
