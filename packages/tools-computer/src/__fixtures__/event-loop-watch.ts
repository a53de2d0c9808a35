import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What the event loop did while it was watched. */
export interface EventLoopReport {
  /** The longest event-loop delay seen by `monitorEventLoopDelay` (10 ms resolution), in ms. */
  maxDelayMs: number;
  /** The longest gap between two runs of a 5 ms interval timer, in ms. */
  maxGapMs: number;
  /** How many times the interval timer ran. */
  ticks: number;
}

/**
 * Watches the event loop while a tool call runs, so a test can assert that the loop kept running (a
 * correctness property: a stall of seconds means a whole worker process froze), not a speed target.
 */
export function watchEventLoop(): { stop(): EventLoopReport } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let ticks = 0;
  let last = performance.now();
  let maxGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    ticks += 1;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      histogram.disable();
      maxGapMs = Math.max(maxGapMs, performance.now() - last);
      return { maxDelayMs: histogram.max / 1e6, maxGapMs, ticks };
    },
  };
}
