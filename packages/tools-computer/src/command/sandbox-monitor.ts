import { closeSync, open as openCallback, read as readCallback } from 'node:fs';
import { readdir, statfs } from 'node:fs/promises';
import { promisify } from 'node:util';

const openDescriptor = promisify(openCallback);
const readDescriptor = promisify(readCallback);

/** The totals one sandboxed command is held to. */
export interface CommandTotals {
  /** Processes and threads at once. */
  readonly maxProcesses: number;
  /** Private memory of its processes plus what its `/tmp` and `/dev/shm` hold, in bytes. */
  readonly maxMemoryBytes: number;
  /** CPU time of all its processes, in seconds. */
  readonly maxCpuSeconds: number;
  /** Bytes it may write to disk (the home's room left), or undefined for no limit. */
  readonly maxDiskBytes: number | undefined;
  /** The home's quota, for the message. */
  readonly homeQuotaBytes: number;
}

/** Which limit a command went over, and the sentence that says so. */
export interface LimitExceeded {
  /** The limit. */
  readonly limit: 'processes' | 'memory' | 'cpu' | 'disk';
  /** `killed: memory limit 1 GiB (...)`: what the model reads. */
  readonly message: string;
}

/** What one look at the sandbox found. */
export interface SandboxSample {
  /** Processes and threads. */
  tasks: number;
  /** Private memory of the processes plus the tmpfs in use, in bytes. */
  memoryBytes: number;
  /** CPU seconds of every process that ran (live ones, and those reaped by a live one). */
  cpuSeconds: number;
  /** Bytes written to disk, net of those cancelled before writeback. */
  diskBytes: number;
}

const PAGE_SIZE = 4096;
/** The kernel's clock ticks per second in `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** Binary units the way the messages say them: `512 MiB`, `1 GiB`, `300 KiB`. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${shown} ${units[unit]}`;
}

/** Fields 14-17 (utime, stime, cutime, cstime) and 20 (threads) of a `stat` line. */
function parseStat(text: string): { ticks: number; threads: number } | undefined {
  const close = text.lastIndexOf(')');
  if (close === -1) return undefined;
  // Fields after the command name start with field 3 (state).
  const fields = text.slice(close + 2).split(' ');
  const field = (number: number) => Number(fields[number - 3] ?? 0);
  return { ticks: field(14) + field(15) + field(16) + field(17), threads: field(20) };
}

/** Resident minus shared pages of a `statm` line: the process's private memory. */
function privatePages(text: string): number {
  const [, resident, shared] = text.split(' ').map(Number);
  return Math.max(0, (resident ?? 0) - (shared ?? 0));
}

function ioBytes(text: string): number {
  const value = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return Math.max(0, value('write_bytes') - value('cancelled_write_bytes'));
}

/**
 * The start of a small `/proc` file (at most 4 KiB): one open and one read on the thread pool, where
 * `readFile` takes four round trips (open, fstat, read to the end, close). Empty when it is gone.
 */
async function readSmall(file: string): Promise<string> {
  let fd: number;
  try {
    fd = await openDescriptor(file, 'r');
  } catch {
    return '';
  }
  try {
    const buffer = Buffer.allocUnsafe(4096);
    const { bytesRead } = await readDescriptor(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('latin1', 0, bytesRead);
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

async function tmpfsUsed(folder: string): Promise<number> {
  try {
    const stats = await statfs(folder);
    return (stats.blocks - stats.bfree) * stats.bsize;
  } catch {
    return 0;
  }
}

/**
 * One look at the sandbox whose init has host pid `initPid`, through the sandbox's own `/proc`
 * (`/proc/<init>/root/proc` lists only the namespace's processes: no tree walk, no scan of the
 * host) and its tmpfs (`statfs` of `/proc/<init>/root/tmp` and `.../dev/shm`). Undefined once the
 * sandbox is gone.
 */
export async function sampleSandbox(initPid: number): Promise<SandboxSample | undefined> {
  const root = `/proc/${initPid}/root`;
  let entries: string[];
  try {
    entries = (await readdir(`${root}/proc`)).filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  const sample: SandboxSample = { tasks: 0, memoryBytes: 0, cpuSeconds: 0, diskBytes: 0 };
  let ticks = 0;
  await Promise.all(
    entries.map(async (pid) => {
      const folder = `${root}/proc/${pid}`;
      const [stat, statm, io] = await Promise.all([
        readSmall(`${folder}/stat`),
        readSmall(`${folder}/statm`),
        readSmall(`${folder}/io`),
      ]);
      const parsed = parseStat(stat);
      if (parsed === undefined) return;
      sample.tasks += parsed.threads;
      ticks += parsed.ticks;
      sample.memoryBytes += privatePages(statm) * PAGE_SIZE;
      sample.diskBytes += ioBytes(io);
    }),
  );
  const [tmp, shm] = await Promise.all([tmpfsUsed(`${root}/tmp`), tmpfsUsed(`${root}/dev/shm`)]);
  sample.memoryBytes += tmp + shm;
  sample.cpuSeconds = ticks / CLOCK_TICKS;
  return sample;
}

/** The limit `sample` goes over, if any. */
export function exceededLimit(sample: SandboxSample, totals: CommandTotals): LimitExceeded | undefined {
  if (sample.tasks >= totals.maxProcesses) {
    return {
      limit: 'processes',
      message: `killed: process limit ${totals.maxProcesses} (processes and threads running at once)`,
    };
  }
  if (sample.memoryBytes > totals.maxMemoryBytes) {
    return {
      limit: 'memory',
      message: `killed: memory limit ${formatBytes(totals.maxMemoryBytes)} (its processes, /tmp and /dev/shm held ${formatBytes(sample.memoryBytes)})`,
    };
  }
  if (sample.cpuSeconds > totals.maxCpuSeconds) {
    return {
      limit: 'cpu',
      message: `killed: CPU time limit ${totals.maxCpuSeconds} s (all its processes together)`,
    };
  }
  if (totals.maxDiskBytes !== undefined && sample.diskBytes > totals.maxDiskBytes) {
    return {
      limit: 'disk',
      message: `killed: disk quota: it wrote ${formatBytes(sample.diskBytes)} with ${formatBytes(Math.max(0, totals.maxDiskBytes))} left of the home's ${formatBytes(totals.homeQuotaBytes)}`,
    };
  }
  return undefined;
}

/** How often a running sandbox is looked at, in ms. */
export const SAMPLE_INTERVAL_MS = 200;

/**
 * Watches one sandboxed command: looks at it every `SAMPLE_INTERVAL_MS` (the next look is scheduled
 * when one ends, so looks never pile up) and calls `onExceeded` once when it goes over a limit. The
 * kernel holds the hard line for each process (rlimits, tmpfs sizes, a root worker's pids cgroup);
 * this adds the command's totals across its processes and the sentence the model reads.
 */
export class SandboxMonitor {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The most memory seen, in bytes. */
  peakMemoryBytes = 0;
  /** The disk bytes written as of the last look (what is known when the command is killed before its init reports). */
  diskBytes = 0;

  constructor(
    private readonly initPid: number,
    private readonly totals: CommandTotals,
    private readonly onExceeded: (exceeded: LimitExceeded) => void,
  ) {
    this.schedule(50);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.look();
    }, delay);
  }

  private async look(): Promise<void> {
    const sample = await sampleSandbox(this.initPid).catch(() => undefined);
    if (this.stopped) return;
    // A look that found nothing (the sandbox ending, a file gone mid-read) is followed by another:
    // the owner stops the monitor when the command has ended.
    if (sample === undefined) {
      this.schedule(SAMPLE_INTERVAL_MS);
      return;
    }
    this.peakMemoryBytes = Math.max(this.peakMemoryBytes, sample.memoryBytes);
    this.diskBytes = Math.max(this.diskBytes, sample.diskBytes);
    const exceeded = exceededLimit(sample, this.totals);
    if (exceeded !== undefined) {
      this.stop();
      this.onExceeded(exceeded);
      return;
    }
    this.schedule(SAMPLE_INTERVAL_MS);
  }

  /** Stops watching (the command ended). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
