import { measureEventLoop, STALL_BOUNDS } from '@switchyard/testkit';

/** What one attack did to this process. */
export interface AttackMeasurement<T> {
  /** What the work resolved with. */
  value: T;
  /** The highest RSS seen while it ran, less the RSS before it, in MB (sampled every 10 ms). */
  rssGrowthMb: number;
  /** The longest the event loop was held up as `monitorEventLoopDelay` saw it, in ms. */
  maxDelayMs: number;
  /** The most the main thread itself ran without the loop turning, in ms (Linux), else the delay. */
  maxBusyMs: number;
  /** How long it took, in ms. */
  elapsedMs: number;
}

/**
 * Runs `work` (an attack on this process, the MCP client) while sampling its RSS every 10 ms and
 * watching its event loop (testkit's `measureEventLoop`): the figures the limit tests bound. RSS is
 * measured from just before the work, so each attack is judged on its own growth.
 */
export async function measureAttack<T>(work: () => Promise<T>): Promise<AttackMeasurement<T>> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const measured = await measureEventLoop(work);
    peak = Math.max(peak, process.memoryUsage.rss());
    return {
      value: measured.value,
      rssGrowthMb: (peak - before) / 1e6,
      maxDelayMs: measured.maxDelayMs,
      maxBusyMs: measured.maxBusyMs ?? measured.maxDelayMs,
      elapsedMs: measured.elapsedMs,
    };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * The bounds of issue 39's acceptance: the worker grows by at most 100 MB and never holds its event
 * loop more than 250 ms (its main thread's own run time between two turns of the loop). What
 * `monitorEventLoopDelay` reports adds the time spent waiting for a core: on this 2-core machine at a
 * load of 15 it reached 1.2 s while the loop was held 128 ms, so it gets testkit's stall bound (3 s).
 */
export const ATTACK_BOUNDS = {
  rssGrowthMb: 100,
  loopHeldMs: 250,
  loopDelayMs: STALL_BOUNDS.maxGapMs,
} as const;
