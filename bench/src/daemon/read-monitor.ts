import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** How long `readMonitor` waits, and what it says when nothing came. */
export interface ReadMonitorOptions {
  /** How long to wait for the reading, ms. */
  timeoutMs: number;
  /** The error's message when it did not come (called then, so it can hold the process's log so far). */
  failure(): string;
}

/**
 * Asks a monitor preloaded into a process (`loop-delay-monitor.mjs`, `heap-monitor.mjs`) for a
 * reading, SIGUSR2, and waits until its file holds reading number `sequence` or a later one: the
 * monitors write each reading whole (a temporary file renamed over the last one), numbered from 1.
 *
 * Contract: rejects with `options.failure()` when no such reading comes within `options.timeoutMs`.
 */
export async function readMonitor<Reading extends { sequence: number }>(
  child: ChildProcess,
  file: string,
  sequence: number,
  options: ReadMonitorOptions,
): Promise<Reading> {
  child.kill('SIGUSR2');
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const seen = await readFile(file, 'utf8').then(
      (text) => JSON.parse(text) as Reading,
      () => undefined,
    );
    if (seen !== undefined && seen.sequence >= sequence) return seen;
    if (Date.now() > deadline) throw new Error(options.failure());
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
