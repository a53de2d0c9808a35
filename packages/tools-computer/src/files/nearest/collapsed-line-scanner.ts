import { isJsSpace } from '@switchyard/core/internal';
import type { TimeSlice } from '../time-slice';
import { CHARACTERS_PER_CHECK, SPACE } from './scan-constants';
import type { SharedBigrams } from './shared-bigrams';

/**
 * Counts the bigrams inside one line of `text`, whitespace collapsed, into or out of a window, and
 * says what the line's collapsed form starts and ends with (the window adds the bigrams across line
 * breaks itself). A line longer than one stretch is scanned a range at a time, so a 10 MB line lets
 * the event loop run; the fields carry the scan across ranges.
 */
export class CollapsedLineScanner {
  /** Characters scanned since the window last looked at the clock. */
  scanned = 0;
  /** The first character of the last line's collapsed form, or -1 when it is empty. */
  first = -1;
  /** The last character of the last line's collapsed form, or -1 when it is empty. */
  last = -1;
  #pendingSpace = false;
  #length = 0;

  constructor(
    private readonly text: string,
    private readonly bigrams: SharedBigrams,
    private readonly slice: TimeSlice,
  ) {}

  /**
   * Adds (delta 1) or removes (delta -1) the bigrams of the line from `start` to `end`; returns its
   * collapsed length. Only a line longer than one stretch is scanned asynchronously (an await per
   * short line would cost more than the scan).
   */
  scan(start: number, end: number, delta: 1 | -1): number | Promise<number> {
    this.last = -1;
    this.#pendingSpace = false;
    this.#length = 0;
    this.first = -1;
    if (end - start <= CHARACTERS_PER_CHECK) {
      this.#scanRange(start, end, delta);
      return this.#length;
    }
    return this.#scanInStretches(start, end, delta);
  }

  async #scanInStretches(start: number, end: number, delta: 1 | -1): Promise<number> {
    for (let from = start; from < end; from += CHARACTERS_PER_CHECK) {
      this.#scanRange(from, Math.min(end, from + CHARACTERS_PER_CHECK), delta);
      if (this.slice.due) await this.slice.yield();
    }
    return this.#length;
  }

  #scanRange(from: number, to: number, delta: 1 | -1): void {
    const text = this.text;
    const bigrams = this.bigrams;
    let previous = this.last;
    let pendingSpace = this.#pendingSpace;
    let length = this.#length;
    let first = this.first;
    for (let index = from; index < to; index += 1) {
      const code = text.charCodeAt(index);
      if (isJsSpace(code)) {
        if (previous !== -1) pendingSpace = true;
        continue;
      }
      if (previous === -1) first = code;
      else if (pendingSpace) {
        bigrams.bump(previous, SPACE, delta);
        bigrams.bump(SPACE, code, delta);
        length += 1;
        pendingSpace = false;
      } else bigrams.bump(previous, code, delta);
      previous = code;
      length += 1;
    }
    this.last = previous;
    this.#pendingSpace = pendingSpace;
    this.#length = length;
    this.first = first;
    this.scanned += to - from;
  }
}
