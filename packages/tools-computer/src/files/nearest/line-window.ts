import type { CollapsedLineScanner } from './collapsed-line-scanner';
import { SPACE } from './scan-constants';
import type { SharedBigrams } from './shared-bigrams';

/**
 * The lines of a window sliding down `text` one line at a time: lines enter at the bottom
 * (`pushLine`) and leave at the top (`shiftLine`), and only the bigrams entering and leaving are
 * counted, so sliding over the whole text is linear. The window's collapsed text is its non-empty
 * lines joined by one space; the bigrams across those joins are added and removed here.
 */
export class LineWindow {
  /** Characters of the window's collapsed text. */
  length = 0;
  #nextLine = 0;
  #nextOffset = 0;
  #shifted = 0;
  // The lines in the window, in a ring: their text range and what their collapsed form starts and
  // ends with (-1 for an empty line).
  readonly #ringSize: number;
  readonly #ringStart: Int32Array;
  readonly #ringEnd: Int32Array;
  readonly #ringFirst: Int32Array;
  readonly #ringLast: Int32Array;
  // The non-empty lines of the window, oldest first (a queue of line numbers).
  readonly #queue: Int32Array;
  #queueHead = 0;
  #queueSize = 0;

  constructor(
    private readonly text: string,
    windowLines: number,
    private readonly bigrams: SharedBigrams,
    private readonly scanner: CollapsedLineScanner,
  ) {
    // One slot more than a window holds: a line enters before the one it replaces leaves.
    this.#ringSize = windowLines + 1;
    this.#ringStart = new Int32Array(this.#ringSize);
    this.#ringEnd = new Int32Array(this.#ringSize);
    this.#ringFirst = new Int32Array(this.#ringSize);
    this.#ringLast = new Int32Array(this.#ringSize);
    this.#queue = new Int32Array(this.#ringSize);
  }

  /** Lines pushed so far: the next line to push. */
  get pushed(): number {
    return this.#nextLine;
  }

  /** Lines shifted out so far: the first line still in the window. */
  get shifted(): number {
    return this.#shifted;
  }

  /** The window holds no non-empty line. */
  get isEmpty(): boolean {
    return this.#queueSize === 0;
  }

  /** The first character of the oldest non-empty line in the window. */
  get oldestFirst(): number {
    return this.#ringFirst[(this.#queue[this.#queueHead] ?? 0) % this.#ringSize] ?? -1;
  }

  /** Adds the next line of the text; a promise only when the line is long enough to scan in stretches. */
  pushLine(): Promise<void> | undefined {
    const line = this.#nextLine;
    const start = this.#nextOffset;
    const newline = this.text.indexOf('\n', start);
    const end = newline === -1 ? this.text.length : newline;
    const slot = line % this.#ringSize;
    this.#ringStart[slot] = start;
    this.#ringEnd[slot] = end;
    this.#nextLine = line + 1;
    this.#nextOffset = end + 1;
    const length = this.scanner.scan(start, end, 1);
    if (typeof length === 'number') {
      this.#enqueue(line, slot, length);
      return undefined;
    }
    return length.then((scanned) => this.#enqueue(line, slot, scanned));
  }

  /** Removes the oldest line; a promise only when the line is long enough to scan in stretches. */
  shiftLine(): Promise<void> | undefined {
    const slot = this.#shifted % this.#ringSize;
    this.#shifted += 1;
    if (this.#ringFirst[slot] === -1) return undefined;
    const length = this.scanner.scan(this.#ringStart[slot] ?? 0, this.#ringEnd[slot] ?? 0, -1);
    if (typeof length === 'number') {
      this.#dequeue(slot, length);
      return undefined;
    }
    return length.then((scanned) => this.#dequeue(slot, scanned));
  }

  #enqueue(line: number, slot: number, length: number): void {
    this.#ringFirst[slot] = this.scanner.first;
    this.#ringLast[slot] = this.scanner.last;
    if (length === 0) return;
    const ringSize = this.#ringSize;
    if (this.#queueSize > 0) {
      const previous = (this.#queue[(this.#queueHead + this.#queueSize - 1) % ringSize] ?? 0) % ringSize;
      this.bigrams.bump(this.#ringLast[previous] ?? 0, SPACE, 1);
      this.bigrams.bump(SPACE, this.#ringFirst[slot] ?? 0, 1);
      this.length += 1;
    }
    this.#queue[(this.#queueHead + this.#queueSize) % ringSize] = line;
    this.#queueSize += 1;
    this.length += length;
  }

  #dequeue(slot: number, length: number): void {
    this.#queueHead = (this.#queueHead + 1) % this.#ringSize;
    this.#queueSize -= 1;
    this.length -= length;
    if (this.#queueSize > 0) {
      const next = (this.#queue[this.#queueHead] ?? 0) % this.#ringSize;
      this.bigrams.bump(this.#ringLast[slot] ?? -1, SPACE, -1);
      this.bigrams.bump(SPACE, this.#ringFirst[next] ?? 0, -1);
      this.length -= 1;
    }
  }
}
