import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { readMonitor } from '../read-monitor';

/**
 * Node processes with a monitor preloaded (`node <nodeOptions> --import=<monitor> -e <script>`), for
 * the monitors' own tests: the process of a test is killed after it, and the folder of its reading
 * file removed. Call at the top of a test file (it registers an `afterEach`).
 */
export function monitoredProcesses(monitor: string, nodeOptions: readonly string[] = []) {
  let child: ChildProcess | undefined;
  let directory: string | undefined;

  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });

  return {
    /** A path for the monitor's readings, `name` in a fresh temporary folder. */
    async readingFile(prefix: string, name: string): Promise<string> {
      directory = await mkdtemp(path.join(os.tmpdir(), prefix));
      return path.join(directory, name);
    },

    /**
     * Starts `script` with the monitor preloaded and `env` (PATH added) and resolves once the script
     * first writes to its stdout; `stdin: 'pipe'` to write to it.
     */
    async start(
      script: string,
      env: Record<string, string> = {},
      stdin: 'pipe' | 'ignore' = 'ignore',
    ): Promise<ChildProcess> {
      const started = spawn(process.execPath, [...nodeOptions, `--import=${monitor}`, '-e', script], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: [stdin, 'pipe', 'inherit'],
      });
      child = started;
      await new Promise<void>((resolve) => started.stdout?.once('data', () => resolve()));
      return started;
    },

    /** Signals the process and waits for the monitor's reading with this sequence number. */
    read<Reading extends { sequence: number }>(file: string, sequence: number): Promise<Reading> {
      if (child === undefined) throw new Error('read(): no process started');
      return readMonitor<Reading>(child, file, sequence, {
        timeoutMs: 10_000,
        failure: () => 'the monitor did not answer',
      });
    },
  };
}
