/**
 * The bigrams (pairs of adjacent characters) of a collapsed target, and how many of them a window
 * shares with it, kept up to date as the window's bigrams are added and removed one at a time: the
 * Dice similarity of a window is `2 * shared / (total + window bigrams)`.
 */
export class SharedBigrams {
  /** Bigrams in the target. */
  readonly total: number;
  /** Bigrams of the current window that match one of the target's (each counted at most as often as the target has it). */
  shared = 0;
  // Each distinct target bigram gets a number: `targetCounts` and `windowCounts` are indexed by it.
  // ASCII pairs are looked up in a flat table, the rest in a map keyed by both character codes.
  readonly #index = new Map<number, number>();
  readonly #ascii = new Int32Array(128 * 128).fill(-1);
  readonly #targetCounts: number[] = [];
  readonly #windowCounts: Int32Array;

  constructor(target: string) {
    for (let index = 0; index + 1 < target.length; index += 1) {
      const first = target.charCodeAt(index);
      const second = target.charCodeAt(index + 1);
      const key = first * 65_536 + second;
      let id = this.#index.get(key);
      if (id === undefined) {
        id = this.#targetCounts.length;
        this.#index.set(key, id);
        this.#targetCounts.push(0);
        if (first < 128 && second < 128) this.#ascii[first * 128 + second] = id;
      }
      this.#targetCounts[id] = (this.#targetCounts[id] ?? 0) + 1;
    }
    this.total = Math.max(0, target.length - 1);
    this.#windowCounts = new Int32Array(this.#targetCounts.length);
  }

  /** Counts the bigram `first`,`second` into (delta 1) or out of (delta -1) the window. */
  bump(first: number, second: number, delta: 1 | -1): void {
    const id =
      first < 128 && second < 128
        ? (this.#ascii[first * 128 + second] ?? -1)
        : (this.#index.get(first * 65_536 + second) ?? -1);
    if (id < 0) return;
    const wanted = this.#targetCounts[id] ?? 0;
    const counts = this.#windowCounts;
    if (delta > 0) {
      if ((counts[id] ?? 0) < wanted) this.shared += 1;
      counts[id] = (counts[id] ?? 0) + 1;
    } else {
      counts[id] = (counts[id] ?? 0) - 1;
      if ((counts[id] ?? 0) < wanted) this.shared -= 1;
    }
  }
}
