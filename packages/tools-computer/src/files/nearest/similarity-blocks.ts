/** Windows per block. */
const BLOCK_SIZE = 1 << 16;

/**
 * One similarity per window, in blocks allocated as the scan reaches them: a single array for five
 * million lines is 20 MB zero-filled at once (70 ms of page faults on the benchmark machine).
 */
export class SimilarityBlocks {
  readonly #blocks: Float32Array[] = [];

  constructor(
    /** Windows in all: one starts at each line of the text. */
    readonly windows: number,
    /** Lines each window spans (fewer at the end of the text). */
    readonly windowLines: number,
  ) {}

  /** The similarity of the window starting at line `start` (0-based), 0 when none was set. */
  get(start: number): number {
    return this.#blocks[start >>> 16]?.[start & 0xffff] ?? 0;
  }

  set(start: number, value: number): void {
    const index = start >>> 16;
    let block = this.#blocks[index];
    if (block === undefined) {
      block = new Float32Array(BLOCK_SIZE);
      this.#blocks[index] = block;
    }
    block[start & 0xffff] = value;
  }
}
