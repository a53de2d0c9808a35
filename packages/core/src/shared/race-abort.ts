/**
 * Settles with `promise`, or rejects as soon as `signal` aborts, whichever comes first; the
 * promise itself is not cancelled (its owner gets the same signal).
 *
 * Contract: rejects at once when `signal` is already aborted (an `abort` listener added after the
 * event would never fire); the rejection is `abortReason` when given, else `signal.reason`. The
 * listener is removed when `promise` settles, so a long-lived signal does not collect them.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, abortReason?: unknown): Promise<T> {
  const reason = () => (abortReason === undefined ? signal.reason : abortReason);
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
