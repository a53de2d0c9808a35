// The busy-daemon suite's side of the floor: the bare-loop process (`floor-process.ts`) started once
// per daemon, given one level's job at a time, its CPU time read around each.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TurnCpu } from '../suites/busy-daemon';
import { msPer } from './daemon-stats';
import type { FloorJob, FloorResult } from './floor-process';
import { mainThreadSchedule, processCpuMs } from './process-cpu';

const FLOOR_FILE = fileURLToPath(new URL('./floor-process.ts', import.meta.url));
const BENCH_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** The floor's process: one per daemon, living as long as it. */
export interface FloorProcess {
  /** Its process id. */
  readonly pid: number;
  /** Runs one level's turns in the process and returns what it measured. */
  run(job: FloorJob): Promise<FloorResult>;
  /** Ends the process (closes its standard input) and waits for it. */
  stop(): Promise<void>;
}

/** Starts the floor in a process of its own (`floor-process.ts`), which runs one job per line. */
export function startFloorProcess(): FloorProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', FLOOR_FILE], {
    cwd: BENCH_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FLOOR_PROCESS: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const waiting: Array<{ resolve: (result: FloorResult) => void; reject: (error: Error) => void }> = [];
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (let newline = stdout.indexOf('\n'); newline !== -1; newline = stdout.indexOf('\n')) {
      const line = stdout.slice(0, newline);
      stdout = stdout.slice(newline + 1);
      waiting.shift()?.resolve(JSON.parse(line) as FloorResult);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code) => {
      for (const job of waiting.splice(0)) {
        job.reject(new Error(`floor process exited ${String(code)}: ${stderr.slice(0, 500)}`));
      }
      resolve();
    });
  });
  return {
    pid: child.pid ?? -1,
    run: (job) =>
      new Promise<FloorResult>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin?.write(`${JSON.stringify(job)}\n`);
      }),
    stop: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}

/** Runs one floor job and reads the floor process's CPU time around it. */
export async function runFloorLevel(
  floorProcess: FloorProcess,
  job: FloorJob,
): Promise<{
  result: FloorResult;
  cpu: Pick<TurnCpu, 'floorMs' | 'floorThreadMs' | 'floorThreadRunning' | 'floorThreadWaiting'>;
}> {
  const cpuBefore = processCpuMs(floorProcess.pid);
  const threadBefore = mainThreadSchedule(floorProcess.pid);
  const result = await floorProcess.run(job);
  const threadAfter = mainThreadSchedule(floorProcess.pid);
  const threadMs = threadAfter.runMs - threadBefore.runMs;
  const done = result.turnMs.length;
  const share = (ms: number) => (result.elapsedMs > 0 ? ms / result.elapsedMs : Number.NaN);
  return {
    result,
    cpu: {
      floorMs: msPer(processCpuMs(floorProcess.pid) - cpuBefore, done),
      floorThreadMs: msPer(threadMs, done),
      floorThreadRunning: share(threadMs),
      floorThreadWaiting: share(threadAfter.waitMs - threadBefore.waitMs),
    },
  };
}
