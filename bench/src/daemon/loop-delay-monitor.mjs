// Preloaded into a benchmark's `switchyard serve` child (`node --import`; plain JavaScript, as the
// daemon runs without tsx): measures the daemon's event-loop delay with Node's own histogram
// (`monitorEventLoopDelay`) and, on each SIGUSR2, writes what it saw since the previous signal to
// the file BENCH_LOOP_DELAY_FILE names (atomically: a temporary file renamed over it), then starts
// over. The daemon itself is not changed: it has no SIGUSR2 handler of its own.
import { renameSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_DELAY_FILE;
const RESOLUTION_MS = 10;

if (file !== undefined && file !== '') {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  // A sample is the time from one of the histogram's timer wake-ups to the next; less the timer's
  // own interval, it is how late the event loop ran it.
  const delayMs = (nanoseconds) => Math.max(0, nanoseconds / 1e6 - RESOLUTION_MS);
  let sequence = 0;
  process.on('SIGUSR2', () => {
    // A signal can be handled before the histogram's timer, overdue after a stall, has run and
    // recorded that stall: read once its timer surely ran again (two of its intervals later).
    setTimeout(report, 2 * RESOLUTION_MS);
  });
  const report = () => {
    sequence += 1;
    const samples = histogram.count;
    const seen = {
      sequence,
      samples,
      p50Ms: samples === 0 ? null : delayMs(histogram.percentile(50)),
      p99Ms: samples === 0 ? null : delayMs(histogram.percentile(99)),
      maxMs: samples === 0 ? null : delayMs(histogram.max),
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(seen));
    renameSync(`${file}.tmp`, file);
    histogram.reset();
  };
}
