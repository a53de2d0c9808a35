import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const MONITOR = fileURLToPath(new URL('./heap-monitor.mjs', import.meta.url));

interface Seen {
  sequence: number;
  collected: boolean;
  heapUsed: number;
  external: number;
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

describe('the heap monitor preloaded into a daemon', () => {
  it('reports what is alive after a full collection: garbage is not counted, what is held is', async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'heap-monitor-'));
    const file = path.join(directory, 'heap.json');
    // A process that makes 200 MB of garbage (arrays of 131,072 numbers, 1 MiB each), says so, then
    // keeps 100 MB alive once told (stdin).
    const script = [
      'const megabyte = (index) => new Array(131072).fill(index + 0.5);',
      'let kept = [];',
      'for (let index = 0; index < 200; index += 1) kept.push(megabyte(index));',
      'kept = [];',
      "process.stdout.write('garbage\\n');",
      "process.stdin.once('data', () => { for (let index = 0; index < 100; index += 1) kept.push(megabyte(index)); process.stdout.write('held\\n'); });",
    ].join(' ');
    const started = spawn(process.execPath, ['--expose-gc', `--import=${MONITOR}`, '-e', script], {
      env: { PATH: process.env.PATH ?? '', BENCH_HEAP_FILE: file },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child = started;
    const line = () => new Promise<void>((resolve) => started.stdout?.once('data', () => resolve()));
    await line();
    const collected = await read(file, 1);
    expect(collected.collected).toBe(true);
    expect(collected.heapUsed).toBeLessThan(50 * 2 ** 20);
    const held = line();
    started.stdin?.write('go\n');
    await held;
    const holding = await read(file, 2);
    expect(holding.heapUsed - collected.heapUsed).toBeGreaterThan(95 * 2 ** 20);
  });

  it('does nothing without BENCH_HEAP_FILE (SIGUSR2 then ends the process as usual)', async () => {
    const started = spawn(
      process.execPath,
      ['--expose-gc', `--import=${MONITOR}`, '-e', 'setInterval(() => {}, 1000); console.log("up")'],
      { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] },
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
