// Preloaded into a benchmark's `switchyard serve` child (`node --expose-gc --import`; plain
// JavaScript, as the daemon runs without tsx): on each SIGUSR2, a full garbage collection of the
// main thread's heap, then what is still alive written to the file BENCH_HEAP_FILE names (atomically:
// a temporary file renamed over it). RSS counts garbage not yet collected and memory the allocators
// keep for reuse; this says what the daemon holds. Not preloaded with the loop-delay monitor (both
// answer SIGUSR2). The daemon itself is not changed: it has no SIGUSR2 handler of its own.
import { renameSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_HEAP_FILE;

// `--import` runs in worker threads too (the embedded database's): only the daemon's thread answers.
if (isMainThread && file !== undefined && file !== '') {
  let sequence = 0;
  process.on('SIGUSR2', () => {
    sequence += 1;
    globalThis.gc?.();
    const usage = process.memoryUsage();
    const seen = {
      sequence,
      collected: typeof globalThis.gc === 'function',
      heapUsed: usage.heapUsed,
      external: usage.external,
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(seen));
    renameSync(`${file}.tmp`, file);
  });
}
