import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HttpError } from './http-error';
import type { ApiBindings } from './route-builders';

/** JSON is UTF-8: a body that is not is refused, never read with its bad bytes replaced (and stored so). */
const decoder = new TextDecoder('utf-8', { fatal: true });

/** `undefined`: the body went over `maxBytes`, and reading stopped there. */
type BoundedBody = Buffer | undefined;

/** The body did not all arrive within its time (`readBoundedBody`'s `timeoutMs`). */
export class BodyTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the request body did not all arrive within ${timeoutMs} ms`);
    this.name = 'BodyTimeoutError';
  }
}

/**
 * Reads a request's body from the Node request under a byte budget and a time limit: resolves
 * `undefined` at the first byte over `maxBytes` (the rest is left unread), rejects with
 * `BodyTimeoutError` when the body is not all there within `timeoutMs` of the read's start (a timer
 * held until the read settles), rejects when the client goes away first, or went away before the
 * read began.
 */
export function readBoundedBody(
  incoming: IncomingMessage,
  maxBytes: number,
  timeoutMs = Number.POSITIVE_INFINITY,
): Promise<BoundedBody> {
  return new Promise<BoundedBody>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          incoming.pause();
          settle(() => reject(new BodyTimeoutError(timeoutMs)));
        }, timeoutMs)
      : undefined;
    const settle = (finish: () => void) => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      finish();
    };
    function onData(chunk: Buffer) {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.pause();
        settle(() => resolve(undefined));
        return;
      }
      chunks.push(chunk);
    }
    function onEnd() {
      settle(() => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    }
    function onError(error: Error) {
      settle(() => reject(error));
    }
    function onClose() {
      if (incoming.readableEnded) return;
      settle(() => reject(new Error('the client closed the connection before the body ended')));
    }
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
    // A request that waited for its share may have lost its client meanwhile: a destroyed stream
    // emits nothing more.
    if (incoming.destroyed && !incoming.readableEnded) onClose();
  });
}

const tooLarge = (maxBytes: number) =>
  new HttpError(413, 'body_too_large', `the request body is over ${maxBytes} bytes`);

/** How a request waits on its client while its body arrives (the load shedder's `awaitClient`). */
export type AwaitClient = <T>(incoming: IncomingMessage, waiting: Promise<T>) => Promise<T>;

/**
 * The body limit: a body over `maxBytes` is a 413 `body_too_large` (`answerError` closes the
 * connection after it, so the rest is never read). A declared `Content-Length` over the limit is
 * refused before a byte is read; a chunked body is counted as it arrives. A body not all there
 * within `timeoutMs` is a 408 `body_timeout`, and its connection is closed. While it arrives, the
 * request waits on its client (`awaitClient`: the load shedder does not count it). A body that is not
 * UTF-8 is a 400 `invalid_json`: it is refused, not read with its bad bytes replaced.
 *
 * A body under the limit is read straight from the Node request once and kept as the request's bytes
 * and text, which every later reader (`c.req.arrayBuffer()`, `c.req.json()`, the validators) takes.
 * This spares each request the web `Request`, stream and `Response` the framework's own body limit
 * and body cache build: over a quarter of the main thread's time in a burst of 2,000 `POST`s.
 * Without a Node request (`app.request` in a test), the framework's body limit does the same job.
 */
export function limitBody(
  maxBytes: number,
  timeoutMs = Number.POSITIVE_INFINITY,
  awaitClient: AwaitClient = (_incoming, waiting) => waiting,
): MiddlewareHandler<ApiBindings> {
  const onWebRequest = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge(maxBytes);
    },
  });
  return async (c, next) => {
    const incoming = c.env?.incoming as IncomingMessage | undefined;
    if (incoming === undefined) return onWebRequest(c, next);
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const declared = incoming.headers['content-length'];
    if (
      declared !== undefined &&
      incoming.headers['transfer-encoding'] === undefined &&
      Number(declared) > maxBytes
    ) {
      throw tooLarge(maxBytes);
    }
    let body: BoundedBody;
    try {
      body = await awaitClient(incoming, readBoundedBody(incoming, maxBytes, timeoutMs));
    } catch (error) {
      if (error instanceof BodyTimeoutError) {
        throw new HttpError(
          408,
          'body_timeout',
          `${error.message} (serve.bodyTimeoutMs): nothing was done`,
          undefined,
          { connection: 'close' },
        );
      }
      throw new HttpError(400, 'body_incomplete', 'the connection closed before the request body ended');
    }
    if (body === undefined) throw tooLarge(maxBytes);
    const bytes = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
    // The framework keeps promises here (its type says values): what its own readers keep.
    const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
    cache.arrayBuffer = Promise.resolve(bytes);
    let text: string;
    try {
      text = decoder.decode(body);
    } catch {
      throw new HttpError(400, 'invalid_json', 'the request body is not valid JSON: it is not UTF-8');
    }
    cache.text = Promise.resolve(text);
    return next();
  };
}
