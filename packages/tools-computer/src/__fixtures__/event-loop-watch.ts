import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'vitest';

/** What the event loop did while it was watched. */
export interface EventLoopReport {
  /** The longest event-loop delay seen by `monitorEventLoopDelay` (10 ms resolution), in ms. */
  maxDelayMs: number;
  /** The longest gap between two runs of a 5 ms interval timer, in ms. */
  maxGapMs: number;
  /**
   * The most the main thread itself ran between two runs of that timer, in ms (Linux schedstat), or
   * undefined elsewhere. On a loaded machine a gap is mostly waiting for a core; this is the part
   * the process held the loop.
   */
  maxBusyMs: number | undefined;
  /** How many times the interval timer ran. */
  ticks: number;
}

/**
 * The bounds a watched call is held to: the main thread never ran a second without the loop turning,
 * and no timer run came more than 3 s late (waiting for a core on a loaded 2-core machine included).
 * Correctness bounds, far above a normal call and far below the seconds to minutes the quadratic
 * paths took.
 */
export const STALL_BOUNDS = { maxBusyMs: 1_000, maxGapMs: 3_000 } as const;

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

function mainThreadRunNs(): number | undefined {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
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
  let lastRun = mainThreadRunNs();
  let maxBusyMs: number | undefined = lastRun === undefined ? undefined : 0;
  const tick = () => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    const run = mainThreadRunNs();
    if (run !== undefined && lastRun !== undefined && maxBusyMs !== undefined) {
      maxBusyMs = Math.max(maxBusyMs, (run - lastRun) / 1e6);
    }
    lastRun = run;
  };
  const timer = setInterval(() => {
    tick();
    ticks += 1;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      histogram.disable();
      tick();
      return { maxDelayMs: histogram.max / 1e6, maxGapMs, maxBusyMs, ticks };
    },
  };
}

/** Asserts a report is within `STALL_BOUNDS`, each figure named in the failure. */
export function expectLoopKeptRunning(loop: EventLoopReport): void {
  if (loop.maxBusyMs !== undefined) {
    expect(loop.maxBusyMs, 'most main-thread run time between two timer runs (ms)').toBeLessThan(
      STALL_BOUNDS.maxBusyMs,
    );
  }
  expect(loop.maxGapMs, 'longest gap between timer runs (ms)').toBeLessThan(STALL_BOUNDS.maxGapMs);
}
