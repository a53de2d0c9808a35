/**
 * A turn's time limit that can be paused: time a turn spends waiting for an operator's approval
 * does not count against `limits.turnTimeoutMs`, so a held call can wait as long as its approval's
 * expiry allows. `signal` aborts once the turn has run `limitMs` in all. The daemon's turns and
 * `switchyard run`'s use it.
 *
 * Its pending timer holds it (and so its controller): unlike an `AbortSignal.timeout` inside an
 * `AbortSignal.any`, which Node 20 can garbage-collect before it fires, it fires however often the
 * heap is collected, until `dispose()`.
 */
export class TurnDeadline {
  readonly #controller = new AbortController();
  readonly #limitMs: number;
  /** Time run before the current stretch. */
  #spentMs = 0;
  /** When the current stretch began; undefined while paused. */
  #since: number | undefined;
  #pauses = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(limitMs: number) {
    this.#limitMs = limitMs;
    this.#start();
  }

  /** Aborts when the limit is reached. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Milliseconds run so far (not counting pauses). */
  activeMs(): number {
    return this.#spentMs + (this.#since === undefined ? 0 : performance.now() - this.#since);
  }

  /** Counts `ms` as already run (a turn continued from another process's checkpoint). */
  spend(ms: number): void {
    if (!Number.isFinite(ms) || ms <= 0) return;
    this.#spentMs += ms;
    if (this.#since !== undefined) {
      clearTimeout(this.#timer);
      this.#start();
    }
  }

  /** Stops the clock (calls nest: it runs again after as many `resume`s). */
  pause(): void {
    this.#pauses += 1;
    if (this.#pauses > 1 || this.#since === undefined) return;
    clearTimeout(this.#timer);
    this.#spentMs += performance.now() - this.#since;
    this.#since = undefined;
  }

  /** Runs the clock again after `pause`. */
  resume(): void {
    if (this.#pauses === 0) return;
    this.#pauses -= 1;
    if (this.#pauses === 0) this.#start();
  }

  /** Stops the timer for good. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#since = undefined;
  }

  #start(): void {
    this.#since = performance.now();
    const left = Math.max(0, this.#limitMs - this.#spentMs);
    this.#timer = setTimeout(() => {
      this.#controller.abort(
        new Error(`the turn ran longer than its limit of ${this.#limitMs} ms (limits.turnTimeoutMs)`),
      );
    }, left);
    this.#timer.unref();
  }
}
