/** A time limit held by the work it bounds: see `startDeadline`. */
export interface Deadline {
  /** Aborts when the time is up (a `TimeoutError`) or when the parent signal aborts (with its reason). */
  readonly signal: AbortSignal;
  /** True once the time ran out; false when only the parent aborted. */
  readonly timedOut: boolean;
  /** Stops the timer and lets go of the parent signal: call it when the work ends, however it ends. */
  clear(): void;
}

/**
 * Starts a time limit of `ms` for one piece of work, aborting `signal` when it runs out or when
 * `parent` aborts.
 *
 * Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on Node 20 the combined signal holds its
 * sources weakly and the timeout's timer holds its signal weakly, so a collection before `ms` takes the
 * timeout away and the limit never fires (under load, collections are frequent). Here the timer's
 * callback holds the controller, and so does the listener on `parent`: the limit lives as long as the
 * timer is pending, whoever else still refers to it.
 *
 * Contract: the timer is unref'd (it never keeps the process alive by itself, as
 * `AbortSignal.timeout`'s does not); an already aborted `parent` aborts `signal` at once;
 * `clear()` is idempotent and leaves `signal` as it is.
 */
export function startDeadline(ms: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const onParentAbort = () => {
    clearTimeout(timer);
    controller.abort(parent?.reason);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    parent?.removeEventListener('abort', onParentAbort);
    controller.abort(new DOMException(`the time limit of ${ms} ms ran out`, 'TimeoutError'));
  }, ms);
  timer.unref();
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
