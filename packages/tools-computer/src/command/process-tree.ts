import { existsSync, readFileSync } from 'node:fs';
import { open, readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** One process as `/proc/<pid>/stat` describes it. */
export interface ProcessStatus {
  /** The process id. */
  pid: number;
  /** Its parent's pid. */
  parentPid: number;
  /** Its process group. */
  groupId: number;
  /** Its session. */
  sessionId: number;
  /** Start time in clock ticks since boot: tells a process from a later one reusing its pid. */
  startTime: string;
  /** One-letter state; `Z` is a zombie (dead, not yet reaped). */
  state: string;
}

const hasProc = process.platform === 'linux' && existsSync('/proc/self/stat');

function parseStat(pid: number, text: string): ProcessStatus {
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

/** Reads a process's status, or undefined when it does not exist (or /proc is unavailable). */
export function readProcessStatus(pid: number): ProcessStatus | undefined {
  if (!hasProc) return undefined;
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
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

// A stat line is well under 1 KiB; one buffer per concurrent read, reused.
const STAT_BYTES = 1024;
const READ_CONCURRENCY = 16;

async function readStatAsync(pid: number, buffer: Buffer): Promise<ProcessStatus | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(`/proc/${pid}/stat`, 'r');
    const { bytesRead } = await handle.read(buffer, 0, STAT_BYTES, 0);
    return parseStat(pid, buffer.toString('latin1', 0, bytesRead));
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, slot: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async (_, slot) => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await work(item, slot);
      }
    }),
  );
}

/** Every process of the host, read from `/proc` asynchronously (a few at a time, off the event loop). */
export async function readProcessTable(): Promise<ProcessTable> {
  if (!hasProc) return new ProcessTable([]);
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return new ProcessTable([]);
  }
  const pids = entries.map(Number).filter((pid) => Number.isInteger(pid) && pid > 0);
  const buffers = Array.from({ length: READ_CONCURRENCY }, () => Buffer.alloc(STAT_BYTES));
  const statuses: ProcessStatus[] = [];
  await forEachLimited(pids, READ_CONCURRENCY, async (pid, slot) => {
    const status = await readStatAsync(pid, buffers[slot] as Buffer);
    if (status !== undefined) statuses.push(status);
  });
  return new ProcessTable(statuses);
}

/** One reading of `/proc`, indexed by pid, parent, group and session. */
export class ProcessTable {
  /** Processes by pid. */
  readonly byPid = new Map<number, ProcessStatus>();
  private readonly children = new Map<number, ProcessStatus[]>();
  private readonly members = new Map<number, ProcessStatus[]>();

  constructor(statuses: readonly ProcessStatus[]) {
    const add = (index: Map<number, ProcessStatus[]>, key: number, status: ProcessStatus) => {
      const list = index.get(key);
      if (list === undefined) index.set(key, [status]);
      else list.push(status);
    };
    for (const status of statuses) {
      this.byPid.set(status.pid, status);
      add(this.children, status.parentPid, status);
      add(this.members, status.groupId, status);
      if (status.sessionId !== status.groupId) add(this.members, status.sessionId, status);
    }
  }

  /** Direct children of `pid`. */
  childrenOf(pid: number): readonly ProcessStatus[] {
    return this.children.get(pid) ?? [];
  }

  /** Processes whose process group or session is `id`. */
  membersOf(id: number): readonly ProcessStatus[] {
    return this.members.get(id) ?? [];
  }
}

/**
 * Reads `/proc` for every command running unconfined: one shared asynchronous scan every 250 ms,
 * however many commands run, instead of a synchronous scan per command on the event loop.
 */
class ProcessWatcher {
  private readonly trees = new Set<ProcessTree>();
  private timer: NodeJS.Timeout | undefined;
  private latest: { startedAt: number; table: Promise<ProcessTable> } | undefined;

  watch(tree: ProcessTree): void {
    this.trees.add(tree);
    if (this.timer === undefined && hasProc) {
      this.timer = setInterval(() => void this.tick(), 250);
      this.timer.unref();
    }
  }

  unwatch(tree: ProcessTree): void {
    this.trees.delete(tree);
    if (this.trees.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** A table read no earlier than `notBefore` (shared with any caller asking at the same time). */
  table(notBefore: number): Promise<ProcessTable> {
    if (this.latest !== undefined && this.latest.startedAt >= notBefore) return this.latest.table;
    const latest = { startedAt: performance.now(), table: readProcessTable() };
    this.latest = latest;
    return latest.table;
  }

  private scanning = false;

  private async tick(): Promise<void> {
    // A slow scan (a loaded host) is not stacked up behind another.
    if (this.scanning) return;
    this.scanning = true;
    try {
      // A table another caller started in the last 100 ms is recent enough.
      const table = await this.table(performance.now() - 100);
      for (const tree of this.trees) tree.update(table);
    } finally {
      this.scanning = false;
    }
  }
}

const watcher = new ProcessWatcher();

async function carriesMarker(pid: number, marker: string): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/environ`, 'latin1')).split('\0').includes(marker);
  } catch {
    return false;
  }
}

/**
 * The processes of one command running without the sandbox: its process group and session, every
 * descendant seen (tracked by parent pid on each scan, so a `setsid` escapee is kept once seen),
 * and every process still carrying the command's environment marker (which survives `setsid` and
 * re-parenting). All reads of `/proc` are asynchronous.
 */
export class ProcessTree {
  private readonly tracked = new Map<number, string>();
  private readonly signalled = new Set<number>();
  private rootStart = 0;

  /**
   * @param rootPid the spawned shell, leader of its own process group and session
   * @param marker `NAME=value` present in the environment of every process the command starts
   */
  private constructor(
    private readonly rootPid: number,
    private readonly marker: string,
  ) {}

  /**
   * Starts tracking a command's processes (scanned with every other running command's). Call it
   * right after the spawn: the root's start time is read at once (one small synchronous read, not a
   * scan), before its pid could be reused.
   */
  static watch(rootPid: number, marker: string): ProcessTree {
    const tree = new ProcessTree(rootPid, marker);
    const root = readProcessStatus(rootPid);
    tree.tracked.set(rootPid, root?.startTime ?? '');
    tree.rootStart = Number(root?.startTime ?? 0);
    watcher.watch(tree);
    return tree;
  }

  /** Stops the periodic scans for this command. */
  dispose(): void {
    watcher.unwatch(this);
  }

  /** Records the command's processes found in `table`. */
  update(table: ProcessTable): void {
    const queue: ProcessStatus[] = [...table.membersOf(this.rootPid)];
    for (const [pid, startTime] of this.tracked) {
      const status = table.byPid.get(pid);
      if (status !== undefined && status.startTime === startTime) queue.push(status);
    }
    for (let index = 0; index < queue.length; index += 1) {
      const status = queue[index] as ProcessStatus;
      if (status.pid === process.pid) continue;
      if (this.tracked.get(status.pid) !== status.startTime) this.tracked.set(status.pid, status.startTime);
      for (const child of table.childrenOf(status.pid)) {
        if (this.tracked.get(child.pid) !== child.startTime) queue.push(child);
      }
    }
  }

  /** Also reads the environment of every untracked process started after the command, for the marker. */
  private async updateDeep(table: ProcessTable): Promise<void> {
    this.update(table);
    const candidates = [...table.byPid.values()].filter(
      (status) =>
        status.pid !== process.pid &&
        this.tracked.get(status.pid) !== status.startTime &&
        // Only processes started after the command can carry its marker: skip reading the rest.
        Number(status.startTime) >= this.rootStart,
    );
    const marked: ProcessStatus[] = [];
    await forEachLimited(candidates, READ_CONCURRENCY, async (status) => {
      if (await carriesMarker(status.pid, this.marker)) marked.push(status);
    });
    for (const status of marked) this.tracked.set(status.pid, status.startTime);
    if (marked.length > 0) this.update(table);
  }

  /** The tracked processes alive in `table` (same pid and start time, not a zombie). */
  private alive(table: ProcessTable): number[] {
    const living: number[] = [];
    for (const [pid, startTime] of this.tracked) {
      const status = table.byPid.get(pid);
      if (status === undefined) {
        if (!hasProc && pid === this.rootPid && isProcessAlive(pid)) living.push(pid);
        continue;
      }
      if (status.startTime === startTime && status.state !== 'Z' && status.state !== 'X') living.push(pid);
    }
    return living;
  }

  /** Sends `signal` to the group and to each living process (`onlyNew`: those not signalled yet). */
  private signal(living: readonly number[], signal: NodeJS.Signals, onlyNew = false): void {
    const targets = living.filter((pid) => pid !== process.pid && !(onlyNew && this.signalled.has(pid)));
    for (const pid of targets) this.signalled.add(pid);
    if (!onlyNew) {
      try {
        process.kill(-this.rootPid, signal);
      } catch {
        // The group may already be empty.
      }
    }
    for (const pid of targets) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone in the meantime.
      }
    }
  }

  /** A table read after `since` (shared with other commands stopping at the same time). */
  private async fresh(since: number, deep = false): Promise<ProcessTable> {
    const table = await watcher.table(since);
    if (deep) await this.updateDeep(table);
    else this.update(table);
    return table;
  }

  /**
   * Stops every process of the command: SIGTERM (and SIGCONT, so stopped ones see it), then after
   * `graceMs` SIGKILL to whatever is left, rescanning for processes started meanwhile. Resolves
   * when none is alive (or after a last bounded wait). Returns the pids that were signalled.
   */
  async terminate(graceMs: number): Promise<number[]> {
    let table = await this.fresh(performance.now(), true);
    let living = this.alive(table);
    if (living.length === 0) return [...this.signalled];
    this.signal(living, 'SIGTERM');
    this.signal(living, 'SIGCONT');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      const since = performance.now();
      await sleep(Math.min(25, Math.max(1, deadline - Date.now())));
      table = await this.fresh(since);
      living = this.alive(table);
      if (living.length === 0) break;
      // Processes started meanwhile get their SIGTERM too; the others are not signalled twice.
      this.signal(living, 'SIGTERM', true);
    }
    table = await this.fresh(performance.now(), true);
    living = this.alive(table);
    for (let attempt = 0; attempt < 100 && living.length > 0; attempt += 1) {
      this.signal(living, 'SIGKILL');
      const since = performance.now();
      await sleep(20);
      table = await this.fresh(since, attempt % 10 === 9);
      living = this.alive(table);
    }
    return [...this.signalled];
  }
}
