import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What `measureEventLoop` saw while the work ran. */
export interface EventLoopMeasurement<T> {
  /** What the work resolved with. */
  value: T;
  /** The longest the event loop was held up, in milliseconds (includes the 10 ms sampling interval). */
  maxDelayMs: number;
  /**
   * The most the main thread itself ran between two ticks of a 5 ms timer, in milliseconds (Linux
   * schedstat), or undefined elsewhere. On a loaded machine a delay is mostly waiting for a core;
   * this is the part the process held the loop.
   */
  maxBusyMs: number | undefined;
  /** How long the work took, in milliseconds. */
  elapsedMs: number;
}

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

function mainThreadRunNs(): number | undefined {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` while sampling the event loop: a correctness check that the loop kept turning (no
 * synchronous stretch of a second), not a speed measurement.
 */
export async function measureEventLoop<T>(work: () => Promise<T>): Promise<EventLoopMeasurement<T>> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  let lastRun = mainThreadRunNs();
  let maxBusyMs: number | undefined = lastRun === undefined ? undefined : 0;
  const tick = () => {
    const run = mainThreadRunNs();
    if (run !== undefined && lastRun !== undefined && maxBusyMs !== undefined) {
      maxBusyMs = Math.max(maxBusyMs, (run - lastRun) / 1e6);
    }
    lastRun = run;
  };
  const timer = setInterval(tick, 5);
  histogram.enable();
  const started = performance.now();
  try {
    const value = await work();
    const elapsedMs = performance.now() - started;
    // One more turn, so a block right at the end is sampled too.
    await new Promise((resolve) => setTimeout(resolve, 20));
    tick();
    return { value, maxDelayMs: histogram.max / 1e6, maxBusyMs, elapsedMs };
  } finally {
    clearInterval(timer);
    histogram.disable();
  }
}

/**
 * The bounds the stall tests hold a call to: the main thread never ran a second without the loop
 * turning, and no tick came more than 3 s late (waiting for a core on a loaded 2-core machine
 * included). Both are correctness bounds, far above a normal call and far below the seconds to
 * minutes the quadratic paths took.
 */
export const STALL_BOUNDS = { maxBusyMs: 1000, maxDelayMs: 3000 } as const;
