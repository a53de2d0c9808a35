/** A line longer than the reader's limit, of which only the ends were kept. */
export interface OversizedLine {
  /** Its length in bytes (without the line break). */
  bytes: number;
  /** Its first bytes, decoded (at most `OVERSIZED_LINE_ENDS` bytes). */
  head: string;
  /** Its last bytes, decoded (at most `OVERSIZED_LINE_ENDS` bytes). */
  tail: string;
}

/** How many bytes of each end of an oversized line are kept: enough for a JSON-RPC `id`. */
export const OVERSIZED_LINE_ENDS = 256;

const NEWLINE = 0x0a;

/** What the reader does with what it finds. */
export interface BoundedLineHandlers {
  /** A complete line of at most the limit (its `\r\n` or `\n` removed). */
  line(text: string): void;
  /** A complete line over the limit: its bytes were dropped as they came. */
  oversized(line: OversizedLine): void;
  /** A line still without an end after `runawayBytes`: called once; the reader takes nothing more. */
  runaway(bytes: number): void;
}

/**
 * Splits a byte stream into lines of at most `maxLineBytes` bytes without ever holding more: a line
 * that passes the limit is dropped as it arrives (its two ends kept), and reported when it ends.
 * Work is linear in the bytes pushed.
 */
export class BoundedLineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  // Set while a line over the limit is being dropped.
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  private stopped = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly runawayBytes: number,
    private readonly handlers: BoundedLineHandlers,
  ) {}

  /** Takes the next chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    while (!this.stopped && start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** Drops whatever is held (the stream ended or was closed). */
  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.dropping = undefined;
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.dropping === undefined && this.pendingBytes + part.length <= this.maxLineBytes) {
      this.pending.push(part);
      this.pendingBytes += part.length;
      return;
    }
    if (this.dropping === undefined) {
      const held = Buffer.concat(this.pending);
      this.clear();
      this.dropping = {
        bytes: held.length,
        head: lastOrFirst(held, 'first'),
        tail: lastOrFirst(held, 'last'),
      };
    }
    const dropping = this.dropping as { bytes: number; head: Buffer; tail: Buffer };
    dropping.bytes += part.length;
    if (dropping.head.length < OVERSIZED_LINE_ENDS) {
      dropping.head = Buffer.concat([
        dropping.head,
        part.subarray(0, OVERSIZED_LINE_ENDS - dropping.head.length),
      ]);
    }
    dropping.tail = lastOrFirst(Buffer.concat([dropping.tail, part.subarray(-OVERSIZED_LINE_ENDS)]), 'last');
    if (dropping.bytes > this.runawayBytes) {
      this.stopped = true;
      this.clear();
      this.handlers.runaway(dropping.bytes);
    }
  }

  private endLine(): void {
    const { dropping } = this;
    if (dropping !== undefined) {
      this.dropping = undefined;
      this.handlers.oversized({
        bytes: dropping.bytes,
        head: dropping.head.toString('utf8'),
        tail: dropping.tail.toString('utf8').replace(/\r$/, ''),
      });
      return;
    }
    const line = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    this.clear();
    this.handlers.line(line.toString('utf8').replace(/\r$/, ''));
  }
}

// A copy, so that keeping a line's ends never keeps the (large) chunk they came in.
function lastOrFirst(bytes: Buffer, end: 'first' | 'last'): Buffer {
  return Buffer.from(
    end === 'first' ? bytes.subarray(0, OVERSIZED_LINE_ENDS) : bytes.subarray(-OVERSIZED_LINE_ENDS),
  );
}
