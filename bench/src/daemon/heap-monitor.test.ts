import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { monitoredProcesses } from './__fixtures__/monitored-processes';

const MONITOR = fileURLToPath(new URL('./heap-monitor.mjs', import.meta.url));

interface Seen {
  sequence: number;
  collected: boolean;
  heapUsed: number;
  external: number;
}

const processes = monitoredProcesses(MONITOR, ['--expose-gc']);

describe('the heap monitor preloaded into a daemon', () => {
  it('reports what is alive after a full collection: garbage is not counted, what is held is', async () => {
    const file = await processes.readingFile('heap-monitor-', 'heap.json');
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
    const started = await processes.start(script, { BENCH_HEAP_FILE: file }, 'pipe');
    const line = () => new Promise<void>((resolve) => started.stdout?.once('data', () => resolve()));
    const collected = await processes.read<Seen>(file, 1);
    expect(collected.collected).toBe(true);
    expect(collected.heapUsed).toBeLessThan(50 * 2 ** 20);
    const held = line();
    started.stdin?.write('go\n');
    await held;
    const holding = await processes.read<Seen>(file, 2);
    expect(holding.heapUsed - collected.heapUsed).toBeGreaterThan(95 * 2 ** 20);
  });

  it('does nothing without BENCH_HEAP_FILE (SIGUSR2 then ends the process as usual)', async () => {
    const started = await processes.start('setInterval(() => {}, 1000); console.log("up")');
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      started.once('exit', (_code, signal) => resolve(signal)),
    );
    started.kill('SIGUSR2');
    expect(await exited).toBe('SIGUSR2');
  });
});
