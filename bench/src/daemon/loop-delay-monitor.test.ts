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

describe('the event-loop delay monitor preloaded into a daemon', () => {
  it('reports a stall of the event loop on SIGUSR2, then starts over', async () => {
    const file = await processes.readingFile('loop-delay-', 'loop-delay.json');
    // A process that blocks its event loop for 300 ms once, then idles.
    const script =
      "setTimeout(() => { const end = Date.now() + 300; while (Date.now() < end); process.stdout.write('blocked\\n'); }, 200); setInterval(() => {}, 1000);";
    await processes.start(script, { BENCH_LOOP_DELAY_FILE: file });
    const stalled = await processes.read<Seen>(file, 1);
    expect(stalled.samples).toBeGreaterThan(0);
    expect(stalled.maxMs).toBeGreaterThanOrEqual(250);
    expect(stalled.maxMs).toBeLessThan(2_000);
    // Most 10 ms wake-ups came on time: the stall is one sample.
    expect(stalled.p50Ms).toBeLessThan(50);

    await new Promise((resolve) => setTimeout(resolve, 300));
    const calm = await processes.read<Seen>(file, 2);
    expect(calm.samples).toBeGreaterThan(0);
    expect(calm.maxMs).toBeLessThan(150);
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
