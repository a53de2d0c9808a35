import type { ResponsesModel } from '@switchyard/core';

/** How long the work let go in one turn of the event loop may run before the rest waits for the next, ms. */
export const SHARE_MS = 10;

/**
 * The event loop's time for the steps of many turns, given out a share at a time. One `serve` runs
 * every turn on one event loop, and turns run in step: a model that answers 2,000 turns at once
 * wakes 2,000 of them in one turn of the loop, and each then builds and sends its next request (a
 * few ms each). Run as they come, they hold the loop for seconds, and a `/healthz` probe, a new
 * `POST` or an operator's answer waits behind them all. A step that waits here runs in the loop's
 * check phase instead, in the order it waited, and once the steps let go in one turn of the loop
 * have run `SHARE_MS`, the rest wait for the next turn, after the loop has served its I/O.
 *
 * Contract: waiters are let go in the order `wait` was called, never before the loop's next check
 * phase; a check phase lets them go one after another until `SHARE_MS` have passed since it let the
 * first go (at least one, however long it runs), and the rest wait for the next check phase, after
 * the loop has polled for I/O.
 */
export class EventLoopShare {
  readonly #waiting: Array<() => void> = [];
  /** Whether a check phase is to let waiters go (or is letting them go). */
  #scheduled = false;

  /** When the steps run where they were read in this turn of the loop began (`inPlace`). */
  #inPlaceSince: number | undefined;

  /**
   * For a step read from I/O (a request that starts a turn): `undefined` when it may run where it
   * was read, else the wait for its share (`wait`). A turn of the loop runs such steps in place for
   * `SHARE_MS`, counted from the first, ahead of the steps waiting for a share: a few requests cost
   * no wait, and a burst read in one poll phase holds the loop for `SHARE_MS` (plus the step that
   * passes it), not for all of it.
   */
  inPlace(): Promise<void> | undefined {
    const now = performance.now();
    if (this.#inPlaceSince === undefined) {
      this.#inPlaceSince = now;
      // The check phase that follows the poll phase: the next turn of the loop counts afresh.
      setImmediate(() => {
        this.#inPlaceSince = undefined;
      });
    }
    return now - this.#inPlaceSince < SHARE_MS ? undefined : this.wait();
  }

  /** Resolves when the caller's step may run. */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#letGo());
      }
    });
  }

  async #letGo(): Promise<void> {
    const start = performance.now();
    do {
      this.#waiting.shift()?.();
      // A microtask later: the step let go ran up to its first await before the clock is read (what
      // it runs after that, in this phase still, the next reading counts).
      await null;
    } while (this.#waiting.length > 0 && performance.now() - start < SHARE_MS);
    if (this.#waiting.length === 0) this.#scheduled = false;
    else setImmediate(() => void this.#letGo());
  }
}

/**
 * `model`, whose every request waits for its share of the event loop before it is built and sent,
 * and whose every response waits for one before the loop goes on with it (records it, runs its
 * calls): the two steps of a turn that wake all the turns of a model's answer at once.
 */
export function sharingEventLoop(model: ResponsesModel, share: EventLoopShare): ResponsesModel {
  return {
    model: model.model,
    defaultToolSearch: model.defaultToolSearch,
    respond: async (request) => {
      await share.wait();
      const response = await model.respond(request);
      await share.wait();
      return response;
    },
  };
}
