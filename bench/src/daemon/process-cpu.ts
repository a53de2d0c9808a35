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

/** CPU time of a process's main thread (a Node process's JavaScript thread, its event loop), ms. */
export function mainThreadCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
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

/** CPU time of a process and of the whole machine at one moment, to be subtracted from a later reading. */
export interface CpuReading {
  /** This process's user plus system time, ms. */
  ownMs: number;
  /** The machine's time over all its cores, ms: busy (neither idle nor waiting on I/O), and all. */
  machineBusyMs: number;
  machineAllMs: number;
}

/** The machine's CPU time from the first line of `/proc/stat`, ms summed over its cores. */
function machineCpuMs(): { busyMs: number; allMs: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    // cpu user nice system idle iowait irq softirq steal (guest time is already in user).
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (ticks.length < 8 || ticks.some((value) => !Number.isFinite(value))) {
      return { busyMs: Number.NaN, allMs: Number.NaN };
    }
    const all = ticks.reduce((total, value) => total + value, 0);
    const waiting = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    const ms = (value: number) => (value * 1000) / ticksPerSecond();
    return { busyMs: ms(all - waiting), allMs: ms(all) };
  } catch {
    return { busyMs: Number.NaN, allMs: Number.NaN };
  }
}

/** Reads this process's CPU time and the machine's, for `cpuSince`. */
export function readCpu(): CpuReading {
  const { user, system } = process.cpuUsage();
  const machine = machineCpuMs();
  return { ownMs: (user + system) / 1000, machineBusyMs: machine.busyMs, machineAllMs: machine.allMs };
}

/**
 * What was used since `before`: this process's CPU time, ms, and the share of the machine's cores
 * that were busy (0 to 1), for all of its processes.
 */
export function cpuSince(before: CpuReading): { ownMs: number; coresBusy: number } {
  const now = readCpu();
  const all = now.machineAllMs - before.machineAllMs;
  return {
    ownMs: now.ownMs - before.ownMs,
    coresBusy: all > 0 ? (now.machineBusyMs - before.machineBusyMs) / all : Number.NaN,
  };
}
