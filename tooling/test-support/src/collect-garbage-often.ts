/** The forced collections `collectGarbageOften` started. */
export interface ForcedCollections {
  /** Full collections run so far: a test asserts it is above 0, so it cannot pass without any. */
  readonly count: number;
  /** Stops collecting (idempotent). */
  stop(): void;
}

/** Options of `collectGarbageOften`. */
export interface CollectGarbageOftenOptions {
  /** Milliseconds between two full collections (default 5). */
  everyMs?: number;
}

/**
 * Runs a full garbage collection every few milliseconds until `stop()`: the load under which a time
 * limit that nothing owns is collected before it fires. On Node 20 an `AbortSignal.timeout(ms)` that
 * only an `AbortSignal.any([...])` refers to is held weakly by both its timer and the combined signal,
 * so under frequent collections it is gone before `ms` and the limit never fires; a limit whose timer
 * is held by its owner fires whatever the collector does. A test of a limit starts this, runs the
 * limited work, and checks the limit fired (and that `count` is above 0).
 *
 * Contract: throws when `globalThis.gc` is missing, naming the flag: the test file's process must
 * run with `--expose-gc` (vitest's `execArgv`, or `node --expose-gc` for a child process). The
 * interval is unref'd, so it never keeps a process alive by itself.
 *
 * @example
 * const collections = collectGarbageOften();
 * try {
 *   const outcome = await fetchPage(url, { limits: { timeoutMs: 300 }, ... }).catch((error) => error);
 *   expect(outcome.kind).toBe('timeout');
 * } finally {
 *   collections.stop();
 * }
 * expect(collections.count).toBeGreaterThan(0);
 */
export function collectGarbageOften(options: CollectGarbageOftenOptions = {}): ForcedCollections {
  const collect = globalThis.gc;
  if (typeof collect !== 'function') {
    throw new Error(
      "collectGarbageOften needs node's --expose-gc: add execArgv: ['--expose-gc'] to the test config (or pass it to the child process)",
    );
  }
  const everyMs = options.everyMs ?? 5;
  if (!(Number.isInteger(everyMs) && everyMs >= 1)) {
    throw new Error(
      `collectGarbageOften: everyMs must be a whole number of milliseconds >= 1, got ${everyMs}`,
    );
  }
  let count = 0;
  const interval = setInterval(() => {
    collect();
    count += 1;
  }, everyMs);
  interval.unref();
  return {
    get count() {
      return count;
    },
    stop() {
      clearInterval(interval);
    },
  };
}
