// CPU time of processes and threads from /proc: what the daemon benchmarks read around a level.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { parseProcStat } from './daemon-stats';

let clockTicksPerSecond: number | undefined;
/** The kernel's clock ticks a second (`getconf CLK_TCK`), the unit of `/proc` CPU times. */
function ticksPerSecond(): number {
  clockTicksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clockTicksPerSecond;
}

/** A `/proc` stat file's user plus system CPU time, ms; NaN once the process is gone. */
function statCpuMs(file: string): number {
  try {
    const stat = parseProcStat(readFileSync(file, 'utf8'));
    return stat === undefined ? Number.NaN : (stat.cpuTicks * 1000) / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

/** CPU time of a whole process (every thread: libuv's pool, V8's helpers, worker threads), ms. */
export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/**
 * CPU time of a process and of its children alive now (a PostgreSQL postmaster and its backends),
 * ms; a child that has exited no longer counts.
 */
export function processTreeCpuMs(parent: number): number {
  let total = processCpuMs(parent);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseProcStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (stat?.ppid === parent) total += (stat.cpuTicks * 1000) / ticksPerSecond();
    } catch {
      // Gone since the listing.
    }
  }
  return total;
}

/**
 * A process's main thread (a Node process's JavaScript thread) from `/proc/PID/task/PID/schedstat`,
 * ms: the time it ran on a core, and the time it was ready to run but waited for one (on a machine
 * whose cores are all busy, the run queue). NaN for both once the process is gone.
 */
export function mainThreadSchedule(pid: number): { runMs: number; waitMs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
      .trim()
      .split(' ')
      .map(Number);
    if (run === undefined || wait === undefined || !Number.isFinite(run) || !Number.isFinite(wait)) {
      return { runMs: Number.NaN, waitMs: Number.NaN };
    }
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return { runMs: Number.NaN, waitMs: Number.NaN };
  }
}
