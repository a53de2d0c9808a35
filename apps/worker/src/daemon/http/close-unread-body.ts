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
 * the daemon read gigabytes (measured: 5 GiB in 10 s, a whole core). Here at most `limits.bytes` more
 * are read; past them the connection is no longer read (its client waits on a full socket), and
 * `limits.ms` after the answer it is closed. Closing at once would lose the client its answer: a
 * connection closed with bytes unread is reset, and a reset that reaches the client before it read
 * the answer discards it.
 *
 * Contract: the answer is sent as the route made it; a body that ends within the limits keeps its
 * connection; one that does not loses it `limits.ms` after the answer, on a timer held until the body
 * ends or the connection closes. Without a Node request (`app.request`), nothing is done.
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
      if (read <= limits.bytes) return;
      // Read no more: Node stops reading the socket once the request's buffer is full.
      incoming.off('data', count);
      incoming.pause();
    };
    const timer = setTimeout(cut, limits.ms);
    incoming.on('data', count);
    incoming.once('end', stop);
    incoming.socket.once('close', stop);
  };
}
