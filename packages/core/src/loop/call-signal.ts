/**
 * One tool call's signal: aborts when the turn's signal does, or when the call's time limit passes.
 *
 * Why not `AbortSignal.any([turnSignal, AbortSignal.timeout(ms)])`: a timeout signal is held by its
 * timer only weakly, and a combined signal holds its sources weakly too, so on Node 20 a collection
 * while the call runs can drop the timeout before it fires, and the limit silently never does. Here
 * the timer itself holds the controller it aborts, and the call holds the timer until `dispose()`.
 */
export class CallSignal {
  readonly #controller = new AbortController();
  readonly #turnSignal: AbortSignal;
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #onTurnAbort = () => this.#controller.abort(this.#turnSignal.reason);

  /**
   * @param turnSignal The turn's signal: its abort (and its reason) reaches the call.
   * @param timeoutMs The call's time limit; none when undefined.
   * @param timeoutMessage The message of the `TimeoutError` the signal aborts with at the limit.
   */
  constructor(turnSignal: AbortSignal, timeoutMs: number | undefined, timeoutMessage: string) {
    this.#turnSignal = turnSignal;
    if (turnSignal.aborted) {
      this.#controller.abort(turnSignal.reason);
      return;
    }
    turnSignal.addEventListener('abort', this.#onTurnAbort, { once: true });
    if (timeoutMs !== undefined) {
      const controller = this.#controller;
      this.#timer = setTimeout(
        () => controller.abort(new DOMException(timeoutMessage, 'TimeoutError')),
        timeoutMs,
      );
    }
  }

  /** What the tool gets as `ctx.signal`. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The call is over: stops the timer and stops following the turn's signal. Idempotent. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#turnSignal.removeEventListener('abort', this.#onTurnAbort);
  }
}
