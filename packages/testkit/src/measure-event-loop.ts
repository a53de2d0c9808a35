import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What `measureEventLoop` saw while the work ran. */
export interface EventLoopMeasurement<T> {
  /** What the work resolved with. */
  value: T;
  /**
   * The longest the event loop was held up as `monitorEventLoopDelay` saw it, in milliseconds (10 ms
   * resolution): for reports; its first samples can miss a block, so the bounds use `maxGapMs`.
   */
  maxDelayMs: number;
  /** The longest gap between two runs of a 5 ms interval timer, in milliseconds: the stall figure. */
  maxGapMs: number;
  /**
   * The most the main thread itself ran between two runs of that timer, in milliseconds (Linux
   * schedstat), or undefined elsewhere. On a loaded machine a delay is mostly waiting for a core;
   * this is the part the process held the loop.
   */
  maxBusyMs: number | undefined;
  /** How long the work took, in milliseconds. */
  elapsedMs: number;
}

/**
 * The bounds a tool call is held to by the stall tests: the main thread never ran a second without
 * the loop turning, and a 5 ms timer never ran more than 3 s late (waiting for a core on a loaded 2-core
 * machine included). Correctness bounds, far above a normal call and far below the seconds to
 * minutes a quadratic path takes on untrusted input; speed is measured in benchmarks, not here.
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
 * Runs `work` while watching the event loop, so a test can check that a tool call on large or
 * hostile input kept the loop turning (`STALL_BOUNDS`): one `serve` process runs many agents on one
 * loop, so a call that holds it for a second freezes all of them.
 *
 * Contract: resolves with what `work` resolved with and the figures; rejects as `work` rejects.
 * Starts sampling a turn before `work` and samples once more after it settles, so a block at its
 * very start or end is seen too.
 *
 * @example
 * const { value, maxBusyMs, maxGapMs } = await measureEventLoop(() => runToolCall(tool, params));
 */
export async function measureEventLoop<T>(work: () => Promise<T>): Promise<EventLoopMeasurement<T>> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
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
  const timer = setInterval(tick, 5);
  histogram.enable();
  // A few timer runs first, so a block at the very start of the work is a gap after a run.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  try {
    const value = await work();
    const elapsedMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
    tick();
    return { value, maxDelayMs: histogram.max / 1e6, maxGapMs, maxBusyMs, elapsedMs };
  } finally {
    clearInterval(timer);
    histogram.disable();
  }
}
