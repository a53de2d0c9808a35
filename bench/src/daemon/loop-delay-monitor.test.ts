import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const MONITOR = fileURLToPath(new URL('./loop-delay-monitor.mjs', import.meta.url));

interface Seen {
  sequence: number;
  samples: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

let child: ChildProcess | undefined;
let directory: string | undefined;

afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

/** Signals the child and waits for the monitor's answer with this sequence number. */
async function read(file: string, sequence: number): Promise<Seen> {
  child?.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const seen = await readFile(file, 'utf8').then(
      (text) => JSON.parse(text) as Seen,
      () => undefined,
    );
    if (seen !== undefined && seen.sequence >= sequence) return seen;
    if (Date.now() > deadline) throw new Error('the monitor did not answer');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the event-loop delay monitor preloaded into a daemon', () => {
  it('reports a stall of the event loop on SIGUSR2, then starts over', async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'loop-delay-'));
    const file = path.join(directory, 'loop-delay.json');
    // A process that blocks its event loop for 300 ms once, then idles.
    const script =
      "setTimeout(() => { const end = Date.now() + 300; while (Date.now() < end); process.stdout.write('blocked\\n'); }, 200); setInterval(() => {}, 1000);";
    const started = spawn(process.execPath, [`--import=${MONITOR}`, '-e', script], {
      env: { PATH: process.env.PATH ?? '', BENCH_LOOP_DELAY_FILE: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = started;
    await new Promise<void>((resolve) => started.stdout?.once('data', () => resolve()));
    const stalled = await read(file, 1);
    expect(stalled.samples).toBeGreaterThan(0);
    expect(stalled.maxMs).toBeGreaterThanOrEqual(250);
    expect(stalled.maxMs).toBeLessThan(2_000);
    // Most 10 ms wake-ups came on time: the stall is one sample.
    expect(stalled.p50Ms).toBeLessThan(50);

    await new Promise((resolve) => setTimeout(resolve, 300));
    const calm = await read(file, 2);
    expect(calm.samples).toBeGreaterThan(0);
    expect(calm.maxMs).toBeLessThan(150);
  });

  it('does nothing without BENCH_LOOP_DELAY_FILE (SIGUSR2 then ends the process as usual)', async () => {
    const started = spawn(
      process.execPath,
      [`--import=${MONITOR}`, '-e', 'setInterval(() => {}, 1000); console.log("up")'],
      {
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    child = started;
    await new Promise<void>((resolve) => started.stdout?.once('data', () => resolve()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      started.once('exit', (_code, signal) => resolve(signal)),
    );
    started.kill('SIGUSR2');
    expect(await exited).toBe('SIGUSR2');
  });
});
