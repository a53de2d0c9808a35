import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a local test server received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server on 127.0.0.1 with an ephemeral port, recording what it receives. */
export interface LocalServer {
  port: number;
  origin: string;
  /** `127.0.0.1:PORT`, for `allowedTargets`. */
  target: string;
  requests: RecordedRequest[];
  /** TCP connections accepted. */
  connections: () => number;
  close: () => Promise<void>;
}

/** Starts a server on 127.0.0.1:0; the handler gets the recorded request with its body read. */
export async function startLocalServer(
  handler: (request: RecordedRequest, response: ServerResponse) => void | Promise<void>,
): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, response)).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    target: `127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
