// Runs each web stall case once and prints the event loop's longest block while it ran, how much
// of the longest gap between two 5 ms timer ticks the main thread actually ran (Linux schedstat:
// the rest was waiting for a core on a loaded machine), and how long the call took. Until the
// stall suite takes these cases: `pnpm --filter @switchyard/bench exec tsx src/stall/run-web-cases.ts`.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { webStallCases } from './web-cases';

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** Nanoseconds the main thread has run on a core, or undefined off Linux. */
function mainThreadRunNs(): number | undefined {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

const column = (value: number | undefined) =>
  (value === undefined ? '-' : `${value.toFixed(0)} ms`).padStart(9);
process.stdout.write(`load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores\n`);
process.stdout.write(
  `${'case'.padEnd(48)} ${'block'.padStart(9)} ${'gap'.padStart(9)} ${'busy'.padStart(9)} ${'call'.padStart(8)}  result\n`,
);
let worstBlock = 0;
let worstBusy = 0;
for (const stallCase of webStallCases()) {
  await stallCase.setup?.();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  let last = performance.now();
  let gap = 0;
  let lastRun = mainThreadRunNs();
  let busy: number | undefined = lastRun === undefined ? undefined : 0;
  const tick = () => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
    const run = mainThreadRunNs();
    if (run !== undefined && lastRun !== undefined && busy !== undefined)
      busy = Math.max(busy, (run - lastRun) / 1e6);
    lastRun = run;
  };
  const timer = setInterval(tick, 5);
  histogram.enable();
  const started = performance.now();
  let outcome: string;
  try {
    const result = (await stallCase.run()) as { isError?: boolean; details?: { format?: string } };
    outcome = result.isError === true ? 'error result' : (result.details?.format ?? 'result');
  } catch (error) {
    outcome = `threw: ${error instanceof Error ? error.message : String(error)}`;
  }
  const elapsed = performance.now() - started;
  tick();
  clearInterval(timer);
  histogram.disable();
  const block = histogram.max / 1e6;
  worstBlock = Math.max(worstBlock, block);
  worstBusy = Math.max(worstBusy, busy ?? 0);
  await stallCase.teardown?.();
  process.stdout.write(
    `${`${stallCase.tool}: ${stallCase.name}`.padEnd(48)} ${column(block)} ${column(gap)} ${column(busy)} ${`${(elapsed / 1000).toFixed(1)} s`.padStart(8)}  ${outcome}\n`,
  );
}
process.stdout.write(
  `worst block ${worstBlock.toFixed(0)} ms, worst main-thread run between two ticks ${worstBusy.toFixed(0)} ms; load average ${os.loadavg()[0]?.toFixed(1)}\n`,
);
// Render threads are unref'd when idle: nothing keeps the process alive once the cases are done.
