/** Where cut output is saved: opened lazily, only when the output exceeds the cap. */
export interface OutputSink {
  /** Path relative to the home, shown to the model. */
  readonly relative: string;
  /** Appends bytes. */
  write(chunk: Uint8Array): Promise<void>;
  /** Closes the file. */
  close(): Promise<void>;
}

/** What a command printed, capped. */
export interface CapturedOutput {
  /** The text the model sees: all of it, or its head and tail around a note of what was cut. */
  text: string;
  /** Bytes the command printed. */
  totalBytes: number;
  /** Lines the command printed (a last line without a newline counts). */
  totalLines: number;
  /** The output was cut. */
  truncated: boolean;
  /** Where the full output was saved (relative to the home), when it was cut. */
  savedPath?: string;
  /** Bytes saved there (less than `totalBytes` when the save limit was reached). */
  savedBytes?: number;
}

function countNewlines(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let count = 0;
  for (let index = from; index < to; index += 1) if (bytes[index] === 0x0a) count += 1;
  return count;
}

const isContinuationByte = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** The end index that drops a UTF-8 character cut short at `end`. */
function completeCharactersEnd(bytes: Uint8Array, end: number): number {
  let lead = end - 1;
  while (lead >= 0 && lead > end - 4 && isContinuationByte(bytes[lead])) lead -= 1;
  if (lead < 0) return end;
  const byte = bytes[lead] ?? 0;
  const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + length > end ? lead : end;
}

const format = (value: number) => value.toLocaleString('en-US');

/**
 * Collects a command's output in arrival order. Up to `maxBytes` it keeps everything; beyond that it
 * keeps the first and last halves (cut at line breaks when one is near, never inside a UTF-8
 * character) and streams the full output to a sink in the home, up to `maxSavedBytes`.
 *
 * Memory stays bounded however fast a command prints, and nothing is allocated per chunk past the
 * cap: the bytes `push` is given are copied into what is kept (the head, and a ring of the tail's
 * size allocated once), and written to the sink straight from the caller's buffer, which the caller
 * leaves untouched (reading no more output) until the write is done. Past `maxSavedBytes` nothing is
 * written, and only the tail is kept.
 */
export class OutputCapture {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private chunks: Buffer[] = [];
  private head: Buffer = Buffer.alloc(0);
  /** The last `tailLimit` bytes since the cap was crossed, as a ring ending at `tailEnd`. */
  private tail: Buffer = Buffer.alloc(0);
  private tailEnd = 0;
  private tailBytes = 0;
  private total = 0;
  private newlines = 0;
  private lastByte: number | undefined;
  private sink: OutputSink | undefined;
  private sinkError: unknown;
  private saved = 0;
  private writes: Promise<void> = Promise.resolve();
  private crossed = false;
  /** Bytes `save` accepted for the sink: past `maxSavedBytes`, nothing is written. */
  private queued = 0;

  constructor(
    private readonly options: {
      maxBytes: number;
      maxSavedBytes: number;
      openSink: () => Promise<OutputSink>;
    },
  ) {
    this.headLimit = Math.ceil(options.maxBytes / 2);
    this.tailLimit = Math.floor(options.maxBytes / 2);
  }

  /**
   * Adds a chunk of output.
   *
   * Contract: returns undefined when it keeps nothing of `bytes` beyond copies (the caller may
   * reuse them at once), or a promise when `bytes` are being written to the sink: the caller must
   * leave them unchanged until it settles (it never rejects).
   */
  push(bytes: Uint8Array): Promise<void> | undefined {
    if (bytes.length === 0) return undefined;
    this.total += bytes.length;
    this.newlines += countNewlines(bytes);
    this.lastByte = bytes[bytes.length - 1];
    if (!this.crossed) {
      if (this.total <= this.options.maxBytes) {
        this.chunks.push(Buffer.from(bytes));
        return undefined;
      }
      this.crossed = true;
      // Crossing the cap: everything so far becomes head, tail and the start of the saved file.
      const all = Buffer.concat([...this.chunks, bytes]);
      this.chunks = [];
      this.head = all.subarray(0, this.headLimit);
      this.tail = Buffer.alloc(this.tailLimit);
      this.keepTail(all.subarray(Math.max(this.headLimit, all.length - this.tailLimit)));
      this.save(all);
      // `all` is a copy of its own: the caller's bytes are free.
      return undefined;
    }
    this.keepTail(bytes);
    return this.save(bytes);
  }

  /** Copies the last bytes of `bytes` into the tail's ring (at most its size: no allocation). */
  private keepTail(bytes: Uint8Array): void {
    const size = this.tail.length;
    if (size === 0) return;
    const last = bytes.length > size ? bytes.subarray(bytes.length - size) : bytes;
    const untilWrap = Math.min(last.length, size - this.tailEnd);
    this.tail.set(last.subarray(0, untilWrap), this.tailEnd);
    this.tail.set(last.subarray(untilWrap), 0);
    this.tailEnd = (this.tailEnd + last.length) % size;
    this.tailBytes = Math.min(size, this.tailBytes + last.length);
  }

  /** The tail's bytes in order. */
  private tailInOrder(): Buffer {
    if (this.tailBytes < this.tail.length) return this.tail.subarray(0, this.tailBytes);
    return Buffer.concat([this.tail.subarray(this.tailEnd), this.tail.subarray(0, this.tailEnd)]);
  }

  /** Queues `bytes` (up to the save limit) for the sink; resolves once they are written or failed. */
  private save(bytes: Uint8Array): Promise<void> | undefined {
    const room = this.options.maxSavedBytes - this.queued;
    if (room <= 0 || this.sinkError !== undefined) return undefined;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.queued += part.length;
    this.writes = this.writes.then(async () => {
      try {
        if (this.sinkError !== undefined) return;
        this.sink ??= await this.options.openSink();
        await this.sink.write(part);
        this.saved += part.length;
      } catch (error) {
        this.sinkError = error;
      }
    });
    return this.writes;
  }
  /** Closes the sink and returns the capped output. */
  async finish(): Promise<CapturedOutput> {
    const totalLines = this.newlines + (this.total > 0 && this.lastByte !== 0x0a ? 1 : 0);
    if (!this.crossed) {
      return {
        text: Buffer.concat(this.chunks).toString('utf8'),
        totalBytes: this.total,
        totalLines,
        truncated: false,
      };
    }
    await this.writes;
    await this.sink?.close().catch(() => undefined);

    let headEnd = this.head.length;
    const headBreak = this.head.lastIndexOf(0x0a);
    if (headBreak >= this.head.length * 0.75) headEnd = headBreak + 1;
    headEnd = completeCharactersEnd(this.head, headEnd);
    const lastBytes = this.tailInOrder();
    let tailStart = 0;
    const tailBreak = lastBytes.indexOf(0x0a);
    if (tailBreak !== -1 && tailBreak < lastBytes.length * 0.25) tailStart = tailBreak + 1;
    while (tailStart < lastBytes.length && isContinuationByte(lastBytes[tailStart])) tailStart += 1;
    const head = this.head.subarray(0, headEnd);
    const tail = lastBytes.subarray(tailStart);
    const cutBytes = this.total - head.length - tail.length;
    const firstCutLine = countNewlines(head) + 1;
    const lastCutLine = Math.max(
      firstCutLine,
      totalLines - countNewlines(tail) - (this.lastByte === 0x0a ? 0 : 1),
    );

    let where: string;
    if (this.sink !== undefined && this.sinkError === undefined) {
      where =
        this.saved < this.total
          ? `the first ${format(this.saved)} bytes were saved to ${this.sink.relative}`
          : `the full output was saved to ${this.sink.relative}`;
    } else {
      where = `the full output could not be saved (${this.sinkError instanceof Error ? this.sinkError.message : String(this.sinkError)})`;
    }
    const note = `\n[... ${format(cutBytes)} bytes cut (lines ${format(firstCutLine)} to ${format(lastCutLine)} of ${format(totalLines)}); ${where} ...]\n`;
    return {
      text: `${head.toString('utf8')}${note}${tail.toString('utf8')}`,
      totalBytes: this.total,
      totalLines,
      truncated: true,
      ...(this.sink !== undefined && this.sinkError === undefined
        ? { savedPath: this.sink.relative, savedBytes: this.saved }
        : {}),
    };
  }
}
