import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { ReaderQueue } from './reader-queue';

/**
 * How long a stream cut off for its reader has to flush its final event before its connection is
 * closed: long enough for a tab the browser froze for a while to read it when it wakes.
 */
export const DEFAULT_OVERFLOW_GRACE_MS = 30_000;

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
  /** Whether a write was refused until the socket drains (the server then reads nothing more). */
  readonly writableNeedDrain: boolean;
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
  /** The most bytes the stream holds for its reader: queued, held by the helper, and written to the socket and not flushed. */
  limitBytes: number;
  /** How long after an overflow the final event may take to flush before the connection is closed. */
  overflowGraceMs?: number;
  /** Called once when the stream cuts its reader off (for the log; the reader gets the overflow event). */
  onOverflow?: () => void;
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
 * One stream's state: what waits for its reader (`ReaderQueue`), what the streaming helper holds,
 * and how it ends. `pump` hands chunks to the helper one at a time, awaiting each.
 */
class BoundedStream {
  readonly #options: BoundedEventStreamOptions;
  readonly #socket: EventStreamSocket | undefined;
  readonly #queue = new ReaderQueue();
  /** Bytes of the chunk handed to the helper and not taken yet: its write is pending. */
  #writing = 0;
  /**
   * Bytes of the last chunk the helper took. Its response stream pulls one chunk ahead of the
   * server: while the socket is backed up (the server waits for it to drain before it reads), that
   * chunk may still wait there; otherwise the server has it, and it is in the socket's count
   * (between a drain and the server's next read it is counted nowhere: one chunk, for a moment).
   */
  #taken = 0;
  /** No more writes: the stream closes once the queue is empty. */
  #ending = false;
  /** Its reader went away: nothing more is sent. */
  #closed = false;
  #cleanUp: (() => void) | undefined;
  #cleanedUp = false;
  /** Set while the pump waits for something to send. */
  #wake: (() => void) | undefined;
  #graceTimer: NodeJS.Timeout | undefined;

  readonly writer: EventStreamWriter = {
    write: (text) => {
      if (this.#ending) return;
      const bytes = Buffer.byteLength(text);
      // Something already waits in the queue (not only in the helper or the socket): the reader is
      // behind. A write into an empty queue is taken whatever its size, so one event larger than
      // the limit still reaches a reader that keeps up.
      if (this.#queue.bytes > 0 && this.#held() + bytes > this.#options.limitBytes) {
        this.#overflow();
        return;
      }
      this.#queue.push(text, bytes);
      this.#notify();
    },
    comment: (text) => {
      if (this.#ending || this.#queue.waiting) return;
      this.writer.write(text);
    },
    replay: (texts) => {
      if (this.#ending) return;
      this.#queue.pushReplay(texts);
      this.#notify();
    },
    end: () => {
      if (this.#ending) return;
      this.#ending = true;
      this.#runCleanUp();
      this.#notify();
    },
  };

  constructor(options: BoundedEventStreamOptions, socket: EventStreamSocket | undefined) {
    this.#options = options;
    this.#socket = socket;
  }

  /** Feeds the helper's stream until the stream ends or its reader goes away. */
  async run(stream: SSEStreamingApi, signal: AbortSignal): Promise<void> {
    const finish = () => this.#finish();
    this.writer.write(`: ${this.#options.comment}\n\n`);
    if (signal.aborted) {
      finish();
      return;
    }
    signal.addEventListener('abort', finish, { once: true });
    stream.onAbort(finish);
    try {
      this.#cleanUp = await this.#options.start(this.writer);
    } catch {
      // A feed that could not start ends the stream: its reader reconnects.
      this.writer.end();
    }
    // Ended (or gone) while `start` ran: its clean-up is due now.
    if (this.#ending) this.#runCleanUp();
    try {
      await this.#pump(stream);
    } finally {
      signal.removeEventListener('abort', finish);
    }
  }

  async #pump(stream: SSEStreamingApi): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      const chunk = this.#queue.take();
      if (chunk === undefined) {
        if (this.#ending) {
          this.#closed = true;
          this.#runCleanUp();
          return;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        continue;
      }
      this.#writing = chunk.byteLength;
      // Resolves once the helper took the chunk, which it does only when the server asked for more:
      // a reader that reads nothing leaves it pending, and what comes meanwhile waits in the queue.
      await stream.write(chunk);
      this.#taken = this.#writing;
      this.#writing = 0;
      if (stream.aborted) this.#finish();
    }
  }

  /** Bytes held for the reader: queued here, held by the helper, and in the socket's buffer. */
  #held(): number {
    const socket = this.#socket;
    const pulledAhead = socket?.writableNeedDrain === true ? this.#taken : 0;
    return this.#queue.bytes + this.#writing + pulledAhead + (socket?.writableLength ?? 0);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #runCleanUp(): void {
    if (this.#cleanedUp || this.#cleanUp === undefined) return;
    this.#cleanedUp = true;
    this.#cleanUp();
  }

  /** Ends the stream at once, dropping what waits: its reader went away. */
  #finish(): void {
    clearTimeout(this.#graceTimer);
    this.#closed = true;
    this.#ending = true;
    this.#queue.reset();
    this.#runCleanUp();
    this.#notify();
  }

  #overflow(): void {
    this.#queue.reset(overflowBlock(this.#options.limitBytes));
    this.#ending = true;
    this.#runCleanUp();
    this.#options.onOverflow?.();
    const socket = this.#socket;
    if (socket !== undefined) {
      // A reader that reads nothing never takes the final event either: its connection goes.
      this.#graceTimer = setTimeout(
        () => socket.destroy(),
        this.#options.overflowGraceMs ?? DEFAULT_OVERFLOW_GRACE_MS,
      );
      const clear = () => clearTimeout(this.#graceTimer);
      socket.once('close', clear);
      socket.once('finish', clear);
    }
    this.#notify();
  }
}

/**
 * A `text/event-stream` response through Hono's streaming helper (`streamSSE`) that holds at most
 * `limitBytes` for its reader, however slowly it reads or if it reads nothing at all. The helper's
 * `write` resolves only once the server asked for more (`@hono/node-server` asks again only after
 * the socket drained), and one chunk is written at a time: what a reader has not taken waits in
 * this stream's queue, where it is counted with what the helper holds and the socket has not
 * flushed. The response's Node stream (`c.env.outgoing`) is read for its unflushed bytes, and closed
 * after an overflow; without it (`app.request`) neither. Events are written as the text they were
 * given, in chunks of whole events, not through `writeSSE`: `/v1/events` formats each message once
 * for every stream, so what stalled readers hold is mostly shared.
 *
 * Contract: events reach a reader that keeps up in the order written, each whole. Once a reader is
 * `limitBytes` behind, what waits for it is dropped, it gets one `event: overflow` (`StreamOverflow`)
 * and the stream ends (`onOverflow` is called then); if that event is not flushed within
 * `overflowGraceMs`, the connection is closed. The clean-up `start` returns runs once, when the
 * stream ends for any reason.
 *
 * @example
 * app.get('/v1/events', (c) =>
 *   boundedEventStream(c, {
 *     comment: 'switchyard events',
 *     limitBytes: 4 * 1024 * 1024,
 *     start: (writer) => feed.subscribe((message) => writer.write(blockOf(message))),
 *   }),
 * );
 */
export function boundedEventStream(c: Context, options: BoundedEventStreamOptions): Response {
  const socket = (c.env as Partial<HttpBindings> | undefined)?.outgoing as EventStreamSocket | undefined;
  const stream = new BoundedStream(options, socket);
  const signal = c.req.raw.signal;
  const response = streamSSE(c, (sse) => stream.run(sse, signal));
  // The helper's own headers say `no-cache`: nothing of the API is stored, and the charset is said.
  response.headers.set('content-type', 'text/event-stream; charset=utf-8');
  response.headers.set('cache-control', 'no-store');
  return response;
}
