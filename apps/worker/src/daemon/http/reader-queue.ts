/**
 * The most bytes handed on at once (the size of a socket's own buffer): a reader that stops holds at
 * most about this outside the queue.
 */
export const CHUNK_BYTES = 16 * 1024;

/**
 * What waits for one event stream's reader: strings (counted in bytes) and replays (iterators read
 * only as they are reached, not counted: their texts are held elsewhere already), taken in order as
 * chunks of about `CHUNK_BYTES`.
 *
 * Contract: `bytes` is the UTF-8 size of the strings waiting; taking is O(what is taken), and taken
 * items leave the queue's arrays now and then, not one by one.
 */
export class ReaderQueue {
  /** Strings waiting for the reader, and replays, from `#head` on. */
  #items: Array<string | Iterator<string>> = [];
  /** The UTF-8 size of each string in `#items` (0 for a replay). */
  #sizes: number[] = [];
  #head = 0;
  #bytes = 0;

  /** Bytes of the strings waiting. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether anything waits (a string or a replay not yet read to its end). */
  get waiting(): boolean {
    return this.#head < this.#items.length;
  }

  /** Queues `text` of `bytes` UTF-8 bytes. */
  push(text: string, bytes: number): void {
    this.#items.push(text);
    this.#sizes.push(bytes);
    this.#bytes += bytes;
  }

  /** Queues a replay: `texts` is read as it is reached, after what waits and before what comes next. */
  pushReplay(texts: Iterator<string>): void {
    this.#items.push(texts);
    this.#sizes.push(0);
  }

  /** Drops everything that waits, then queues `text` (if given) alone. */
  reset(text?: string): void {
    this.#items = [];
    this.#sizes = [];
    this.#head = 0;
    this.#bytes = 0;
    if (text !== undefined) this.push(text, Buffer.byteLength(text));
  }

  /**
   * The next chunk (up to `CHUNK_BYTES`, or one longer item), or undefined when nothing waits.
   * Encoded straight into one buffer: no joined string is made on the way.
   */
  take(): Buffer | undefined {
    const parts: string[] = [];
    const lengths: number[] = [];
    let length = 0;
    while (this.#head < this.#items.length && length < CHUNK_BYTES) {
      const item = this.#items[this.#head] as string | Iterator<string>;
      if (typeof item === 'string') {
        const bytes = this.#sizes[this.#head] ?? 0;
        parts.push(item);
        lengths.push(bytes);
        length += bytes;
        this.#bytes -= bytes;
        this.#head += 1;
        continue;
      }
      const next = item.next();
      if (next.done === true) {
        this.#head += 1;
        continue;
      }
      const bytes = Buffer.byteLength(next.value);
      parts.push(next.value);
      lengths.push(bytes);
      length += bytes;
    }
    this.#compact();
    if (parts.length === 0) return undefined;
    const chunk = Buffer.allocUnsafe(length);
    let offset = 0;
    parts.forEach((part, index) => {
      chunk.write(part, offset, 'utf8');
      offset += lengths[index] ?? 0;
    });
    return chunk;
  }

  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#sizes = this.#sizes.slice(this.#head);
      this.#head = 0;
    }
  }
}
