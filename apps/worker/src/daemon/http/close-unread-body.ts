import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';

/** How much of an unread body is read and thrown away after the answer, at most. */
export interface UnreadBodyLimits {
  /** Bytes. Default 1 MiB. */
  bytes: number;
  /** Milliseconds after the answer. Default 2 s. */
  ms: number;
}

const DEFAULT_LIMITS: UnreadBodyLimits = { bytes: 1024 * 1024, ms: 2_000 };

/**
 * Bounds what is read of a body nobody reads: a request answered before its body all arrived (a 401
 * or 503 before the body limit, a `GET` that came with a body, a route that reads none). Node reads
 * the rest of such a body after the answer and throws it away, to keep the connection for a next
 * request, however long the body is: outside the body limit, a client without the token could make
 * the daemon read gigabytes (measured: 5 GiB in 10 s, a whole core). Here the rest is read for at most
 * `limits.bytes` or `limits.ms` after the answer, whichever comes first, and then the connection is
 * closed. Closing at once would lose the client its answer: closed with its bytes unread, a connection
 * is reset, and the reset can overtake the answer.
 *
 * Contract: the answer is sent as the route made it; a body that ends within the limits keeps its
 * connection; one that does not loses it, its timer held until the body ends or the connection
 * closes. Without a Node request (`app.request`), nothing is done.
 */
export function closeUnreadBody(
  limits: UnreadBodyLimits = DEFAULT_LIMITS,
): MiddlewareHandler<{ Bindings: Partial<HttpBindings> }> {
  return async (c, next) => {
    await next();
    const incoming = c.env?.incoming as IncomingMessage | undefined;
    if (incoming === undefined || incoming.complete) return;
    let read = 0;
    const stop = () => {
      clearTimeout(timer);
      incoming.off('data', count);
      incoming.off('end', stop);
      incoming.socket.off('close', stop);
    };
    const cut = () => {
      stop();
      incoming.socket.destroy();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limits.bytes) cut();
    };
    const timer = setTimeout(cut, limits.ms);
    incoming.on('data', count);
    incoming.once('end', stop);
    incoming.socket.once('close', stop);
  };
}
