import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** One process as `/proc/<pid>/stat` describes it. */
export interface ProcessStatus {
  pid: number;
  parentPid: number;
  groupId: number;
  sessionId: number;
  /** Start time in clock ticks since boot: tells a process from a later one reusing its pid. */
  startTime: string;
  /** One-letter state; `Z` is a zombie (dead, not yet reaped). */
  state: string;
}

const hasProc = process.platform === 'linux' && existsSync('/proc/self/stat');

/** Reads a process's status, or undefined when it does not exist (or /proc is unavailable). */
export function readProcessStatus(pid: number): ProcessStatus | undefined {
  if (!hasProc) return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '?',
    parentPid: Number(fields[1]),
    groupId: Number(fields[2]),
    sessionId: Number(fields[3]),
    startTime: fields[19] ?? '',
  };
}

/**
 * True while a process exists and is not a zombie. A zombie has exited; it lingers only until its
 * parent (here often a container's PID 1) reaps it.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const status = readProcessStatus(pid);
  return status === undefined ? !hasProc : status.state !== 'Z' && status.state !== 'X';
}

function listProcesses(): ProcessStatus[] {
  if (!hasProc) return [];
  const statuses: ProcessStatus[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const status = readProcessStatus(pid);
    if (status !== undefined) statuses.push(status);
  }
  return statuses;
}

function carriesMarker(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker);
  } catch {
    return false;
  }
}

/**
 * The processes of one command: its process group and session, every descendant seen (tracked by
 * parent pid on each scan, so a `setsid` escapee is kept once seen), and every process still
 * carrying the command's environment marker (which survives `setsid` and re-parenting).
 */
export class ProcessTree {
  private readonly tracked = new Map<number, string>();
  private readonly signalled = new Set<number>();
  private readonly rootStart: number;

  /**
   * @param rootPid the spawned shell, leader of its own process group and session
   * @param marker `NAME=value` present in the environment of every process the command starts
   */
  constructor(
    private readonly rootPid: number,
    private readonly marker: string,
  ) {
    const root = readProcessStatus(rootPid);
    this.tracked.set(rootPid, root?.startTime ?? '');
    this.rootStart = Number(root?.startTime ?? 0);
  }

  /** Records the command's current processes. `deep` also reads every process's environment. */
  scan(deep = false): void {
    const processes = listProcesses();
    const byPid = new Map(processes.map((status) => [status.pid, status]));
    const isTracked = (status: ProcessStatus) => this.tracked.get(status.pid) === status.startTime;
    let grew = true;
    while (grew) {
      grew = false;
      for (const status of processes) {
        if (isTracked(status) || status.pid === process.pid) continue;
        const parent = this.tracked.get(status.parentPid);
        const belongs =
          status.groupId === this.rootPid ||
          status.sessionId === this.rootPid ||
          (parent !== undefined && byPid.get(status.parentPid)?.startTime === parent) ||
          // Only processes started after the command can carry its marker: skip reading the rest.
          (deep && Number(status.startTime) >= this.rootStart && carriesMarker(status.pid, this.marker));
        if (belongs) {
          this.tracked.set(status.pid, status.startTime);
          grew = true;
        }
      }
    }
  }

  /** The tracked processes still alive (same pid and start time, not a zombie). */
  alive(): number[] {
    const living: number[] = [];
    for (const [pid, startTime] of this.tracked) {
      const status = readProcessStatus(pid);
      if (status === undefined) {
        if (!hasProc && pid === this.rootPid && isProcessAlive(pid)) living.push(pid);
        continue;
      }
      if (status.startTime === startTime && status.state !== 'Z' && status.state !== 'X') living.push(pid);
    }
    return living;
  }

  /** Sends `signal` to the group and to each living tracked process (`onlyNew`: those not signalled yet). */
  private signal(signal: NodeJS.Signals, onlyNew = false): void {
    const living = this.alive().filter((pid) => pid !== process.pid && !(onlyNew && this.signalled.has(pid)));
    for (const pid of living) this.signalled.add(pid);
    if (!onlyNew) {
      try {
        process.kill(-this.rootPid, signal);
      } catch {
        // The group may already be empty.
      }
    }
    for (const pid of living) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone in the meantime.
      }
    }
  }

  /**
   * Stops every process of the command: SIGTERM (and SIGCONT, so stopped ones see it), then after
   * `graceMs` SIGKILL to whatever is left, rescanning for processes started meanwhile. Resolves
   * when none is alive (or after a last bounded wait). Returns the pids that were signalled.
   */
  async terminate(graceMs: number): Promise<number[]> {
    this.scan(true);
    if (this.alive().length === 0) return [...this.signalled];
    this.signal('SIGTERM');
    this.signal('SIGCONT');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      await sleep(Math.min(25, Math.max(1, deadline - Date.now())));
      this.scan();
      if (this.alive().length === 0) break;
      // Processes started meanwhile get their SIGTERM too; the others are not signalled twice.
      this.signal('SIGTERM', true);
    }
    this.scan(true);
    for (let attempt = 0; attempt < 100 && this.alive().length > 0; attempt += 1) {
      this.signal('SIGKILL');
      await sleep(20);
      this.scan(attempt % 10 === 9);
    }
    return [...this.signalled];
  }
}
