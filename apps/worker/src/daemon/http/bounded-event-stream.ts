/**
 * How long a stream cut off for its reader has to flush its final event before its connection is
 * closed: long enough for a tab the browser froze for a while to read it when it wakes.
 */
export const DEFAULT_OVERFLOW_GRACE_MS = 30_000;

/**
 * The most bytes handed to the socket at once (the size of its own buffer): a reader that stops holds
 * at most about this there.
 */
const CHUNK_BYTES = 16 * 1024;

/** The data of the `overflow` event that ends a stream whose reader fell behind. */
export interface StreamOverflow {
  /** Why the stream ended: its reader did not take its events fast enough. */
  reason: 'reader-behind';
  /** The stream's limit: the most bytes it holds for its reader. */
  limitBytes: number;
  /** The same, in words. */
  message: string;
}

/** The response's Node stream, as far as the stream needs it (`c.env.outgoing`). */
export interface EventStreamSocket {
  /** Bytes written to the response that the socket has not flushed yet. */
  readonly writableLength: number;
  /** Closes the connection. */
  destroy(): void;
  once(event: 'close' | 'finish', listener: () => void): unknown;
}

/** What feeds a stream: each method may be called at any time, also after the stream ended (then it does nothing). */
export interface EventStreamWriter {
  /**
   * Queues `text` (one or more whole events, or a comment) for the reader. When the bytes held for
   * the reader would pass the limit, what waits is dropped and the stream ends with the overflow
   * event instead. A write when nothing waits in the queue is always taken, whatever its size.
   */
  write(text: string): void;
  /** Queues a comment only when nothing waits for the reader (a keep-alive never piles up). */
  comment(text: string): void;
  /**
   * Queues events held elsewhere already (a turn's log): `texts` is read only as the reader takes
   * them, after what was written before and before what is written after, and what it has not given
   * yet does not count against the limit.
   */
  replay(texts: Iterator<string>): void;
  /** Ends the stream once everything queued has been taken. */
  end(): void;
}

/** How `boundedEventStream` answers. */
export interface BoundedEventStreamOptions {
  /** The comment the stream opens with (sent at once, so the client knows the stream is accepted). */
  comment: string;
  /** The request's signal: the client went away. */
  signal: AbortSignal;
  /** The most bytes the stream holds for its reader: queued, plus written to the socket and not flushed. */
  limitBytes: number;
  /** The response's Node stream: its unflushed bytes count, and it is closed after an overflow. Absent: neither. */
  socket?: EventStreamSocket | undefined;
  /** How long after an overflow the final event may take to flush before the connection is closed. */
  overflowGraceMs?: number;
  /** Feeds the stream; returns its clean-up, run once when the stream ends or its reader goes away. */
  start(writer: EventStreamWriter): (() => void) | Promise<() => void>;
}

/** The overflow event's text for `limitBytes`. */
export function overflowBlock(limitBytes: number): string {
  const data: StreamOverflow = {
    reason: 'reader-behind',
    limitBytes,
    message: `the reader fell more than ${limitBytes} bytes behind this stream, which ends here: reconnect and reload what was missed`,
  };
  return `event: overflow\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * A `text/event-stream` response that holds at most `limitBytes` for its reader, however slowly it
 * reads or if it reads nothing at all. The body is pulled: a chunk is made only when the HTTP
 * server asks for one (`@hono/node-server` asks again only after the socket drained), so what a
 * reader has not taken waits in this stream's queue, where it is counted with what the socket has
 * not flushed.
 *
 * Contract: events reach a reader that keeps up in the order written, each whole. Once a reader is
 * `limitBytes` behind, what waits for it is dropped, it gets one `event: overflow` (`StreamOverflow`)
 * and the stream ends; if that event is not flushed within `overflowGraceMs`, the connection is
 * closed. The clean-up `start` returns runs once, when the stream ends for any reason.
 *
 * @example
 * return boundedEventStream({
 *   comment: 'switchyard events',
 *   signal: c.req.raw.signal,
 *   limitBytes: 4 * 1024 * 1024,
 *   socket: c.env?.outgoing,
 *   start: (writer) => feed.subscribe((message) => writer.write(blockOf(message))),
 * });
 */
export function boundedEventStream(options: BoundedEventStreamOptions): Response {
  const { limitBytes, socket } = options;
  /** Strings waiting for the reader, and replays (read as they are reached), from `head` on. */
  let queue: Array<string | Iterator<string>> = [];
  /** The UTF-8 size of each string in `queue` (0 for a replay). */
  let sizes: number[] = [];
  let head = 0;
  /** Bytes of the strings in `queue`. */
  let queuedBytes = 0;
  /** No more writes: the stream closes once the queue is empty. */
  let ending = false;
  /** Closed, or its reader went away: nothing more is sent. */
  let closed = false;
  let cleanUp: (() => void) | undefined;
  let cleanedUp = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Set while the server waits for a chunk and none is queued. */
  let waiting: (() => void) | undefined;
  let graceTimer: NodeJS.Timeout | undefined;

  const runCleanUp = () => {
    if (cleanedUp || cleanUp === undefined) return;
    cleanedUp = true;
    cleanUp();
  };

  /** Ends the stream at once, dropping what waits: its reader went away. */
  const finish = () => {
    clearTimeout(graceTimer);
    closed = true;
    ending = true;
    queue = [];
    sizes = [];
    head = 0;
    queuedBytes = 0;
    runCleanUp();
    const resolve = waiting;
    waiting = undefined;
    try {
      controller?.close();
    } catch {
      // Cancelled by the server already.
    }
    resolve?.();
  };

  /**
   * The next chunk for the server (up to `CHUNK_BYTES`, or one longer item), or undefined. Encoded
   * straight into one buffer: no joined string is made on the way.
   */
  const nextChunk = (): Buffer | undefined => {
    const parts: string[] = [];
    const lengths: number[] = [];
    let length = 0;
    while (head < queue.length && length < CHUNK_BYTES) {
      const item = queue[head] as string | Iterator<string>;
      if (typeof item === 'string') {
        const bytes = sizes[head] ?? 0;
        parts.push(item);
        lengths.push(bytes);
        length += bytes;
        queuedBytes -= bytes;
        head += 1;
        continue;
      }
      const next = item.next();
      if (next.done === true) {
        head += 1;
        continue;
      }
      const bytes = Buffer.byteLength(next.value);
      parts.push(next.value);
      lengths.push(bytes);
      length += bytes;
    }
    // Taken items leave the array now and then, not one by one.
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      sizes = sizes.slice(head);
      head = 0;
    }
    if (parts.length === 0) return undefined;
    const chunk = Buffer.allocUnsafe(length);
    let offset = 0;
    parts.forEach((part, index) => {
      chunk.write(part, offset, 'utf8');
      offset += lengths[index] ?? 0;
    });
    return chunk;
  };

  /** Hands the server a chunk if it waits for one; closes once everything is out after `end`. */
  const deliver = () => {
    if (waiting === undefined || controller === undefined || closed) return;
    const chunk = nextChunk();
    if (chunk !== undefined) {
      const resolve = waiting;
      waiting = undefined;
      controller.enqueue(chunk);
      resolve();
      return;
    }
    if (ending) {
      const resolve = waiting;
      waiting = undefined;
      closed = true;
      runCleanUp();
      try {
        controller.close();
      } catch {
        // Cancelled by the server meanwhile.
      }
      resolve();
    }
  };

  /** Bytes held for the reader: queued here, and in the socket's buffer. */
  const held = () => queuedBytes + (socket?.writableLength ?? 0);

  const overflow = () => {
    const block = overflowBlock(limitBytes);
    queue = [block];
    queuedBytes = Buffer.byteLength(block);
    sizes = [queuedBytes];
    head = 0;
    ending = true;
    runCleanUp();
    if (socket !== undefined) {
      // A reader that reads nothing never takes the final event either: its connection goes.
      graceTimer = setTimeout(() => socket.destroy(), options.overflowGraceMs ?? DEFAULT_OVERFLOW_GRACE_MS);
      const clear = () => clearTimeout(graceTimer);
      socket.once('close', clear);
      socket.once('finish', clear);
    }
    deliver();
  };

  const writer: EventStreamWriter = {
    write(text) {
      if (ending) return;
      const bytes = Buffer.byteLength(text);
      // Something already waits in the queue (not only in the socket): the reader is behind. A
      // write into an empty queue is taken whatever its size, so one event larger than the limit
      // still reaches a reader that keeps up.
      if (queuedBytes > 0 && held() + bytes > limitBytes) {
        overflow();
        return;
      }
      queue.push(text);
      sizes.push(bytes);
      queuedBytes += bytes;
      deliver();
    },
    comment(text) {
      if (ending || head < queue.length) return;
      writer.write(text);
    },
    replay(texts) {
      if (ending) return;
      queue.push(texts);
      sizes.push(0);
      deliver();
    },
    end() {
      if (ending) return;
      ending = true;
      runCleanUp();
      deliver();
    },
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      async start(streamController) {
        controller = streamController;
        writer.write(`: ${options.comment}\n\n`);
        if (options.signal.aborted) {
          finish();
          return;
        }
        options.signal.addEventListener('abort', finish, { once: true });
        cleanUp = await options.start(writer);
        // Ended (or gone) while `start` ran: its clean-up is due now.
        if (ending) runCleanUp();
      },
      pull() {
        if (closed) return;
        return new Promise<void>((resolve) => {
          waiting = resolve;
          deliver();
        });
      },
      cancel() {
        finish();
      },
    },
    // Nothing is pulled ahead: what the reader has not asked for stays in the counted queue.
    { highWaterMark: 0 },
  );
  return new Response(stream, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    },
  });
}
