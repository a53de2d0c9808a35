import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { monitoredProcesses } from './__fixtures__/monitored-processes';

const MONITOR = fileURLToPath(new URL('./loop-delay-monitor.mjs', import.meta.url));

interface Seen {
  sequence: number;
  samples: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

const processes = monitoredProcesses(MONITOR);

/** How long the test's process blocks its event loop, ms: far beyond any wake-up delay of a busy machine. */
const STALL_MS = 1_000;

describe('the event-loop delay monitor preloaded into a daemon', () => {
  it('reports a stall of the event loop on SIGUSR2, then starts over', async () => {
    const file = await processes.readingFile('loop-delay-', 'loop-delay.json');
    // A process that blocks its event loop once, then idles. The block is timed by the wall clock, so
    // the monitor sees at least STALL_MS however busy the machine is (a slower machine only adds).
    const script = `setTimeout(() => { const end = Date.now() + ${STALL_MS}; while (Date.now() < end); process.stdout.write('blocked\\n'); }, 200); setInterval(() => {}, 1000);`;
    await processes.start(script, { BENCH_LOOP_DELAY_FILE: file });
    const stalled = await processes.read<Seen>(file, 1);
    expect(stalled.samples).toBeGreaterThan(1);
    // Less the histogram's 10 ms interval, and a little for the clock's granularity.
    expect(stalled.maxMs).toBeGreaterThanOrEqual(STALL_MS - 50);
    // Milliseconds, not nanoseconds or seconds (a safety net, not a speed figure).
    expect(stalled.maxMs).toBeLessThan(60_000);
    // The stall is one sample: the median wake-up was not it.
    expect(stalled.p50Ms).toBeLessThan(stalled.maxMs ?? 0);

    await new Promise((resolve) => setTimeout(resolve, 300));
    const calm = await processes.read<Seen>(file, 2);
    expect(calm.samples).toBeGreaterThan(0);
    // Started over: without the reset this reading's maximum would be the stall's (a maximum never
    // falls). An idle process woken a whole STALL_MS late would be a stall of its own.
    expect(calm.maxMs).toBeLessThan(stalled.maxMs ?? 0);
  });

  it('does nothing without BENCH_LOOP_DELAY_FILE (SIGUSR2 then ends the process as usual)', async () => {
    const started = await processes.start('setInterval(() => {}, 1000); console.log("up")');
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      started.once('exit', (_code, signal) => resolve(signal)),
    );
    started.kill('SIGUSR2');
    expect(await exited).toBe('SIGUSR2');
  });
});
