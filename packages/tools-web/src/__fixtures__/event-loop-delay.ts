import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What `measureEventLoop` saw while the work ran. */
export interface EventLoopMeasurement<T> {
  /** What the work resolved with. */
  value: T;
  /** The longest the event loop was blocked, in milliseconds (includes the 10 ms sampling interval). */
  maxDelayMs: number;
  /** How long the work took, in milliseconds. */
  elapsedMs: number;
}

/**
 * Runs `work` while sampling the event loop every 10 ms: a correctness check that the loop kept
 * turning (no synchronous stretch of seconds), not a speed measurement.
 */
export async function measureEventLoop<T>(work: () => Promise<T>): Promise<EventLoopMeasurement<T>> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const started = performance.now();
  try {
    const value = await work();
    const elapsedMs = performance.now() - started;
    // One more turn, so a block right at the end is sampled too.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { value, maxDelayMs: histogram.max / 1e6, elapsedMs };
  } finally {
    histogram.disable();
  }
}
