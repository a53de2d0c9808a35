// Runs each web stall case once and prints the event loop's longest block while it ran, and how
// long the call took. Until the stall suite lands: `pnpm --filter @switchyard/bench exec tsx src/stall/run-web-cases.ts`.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { webStallCases } from './web-cases';

process.stdout.write(`${'case'.padEnd(48)} ${'longest block'.padStart(14)} ${'call'.padStart(10)}  result\n`);
let worst = 0;
for (const stallCase of webStallCases()) {
  await stallCase.setup?.();
  const histogram = monitorEventLoopDelay({ resolution: 10 });
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
  // One more turn so a block at the very end is sampled.
  await new Promise((resolve) => setTimeout(resolve, 20));
  histogram.disable();
  const block = histogram.max / 1e6;
  worst = Math.max(worst, block);
  await stallCase.teardown?.();
  process.stdout.write(
    `${`${stallCase.tool}: ${stallCase.name}`.padEnd(48)} ${`${block.toFixed(0)} ms`.padStart(14)} ${`${(elapsed / 1000).toFixed(1)} s`.padStart(10)}  ${outcome}\n`,
  );
}
process.stdout.write(`worst block: ${worst.toFixed(0)} ms (sampled every 10 ms)\n`);
// Render threads are unref'd when idle: nothing keeps the process alive once the cases are done.
