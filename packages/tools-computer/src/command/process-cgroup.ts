import { randomUUID } from 'node:crypto';
import { rmdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** One line of `/proc/self/mountinfo`: where a file system is mounted, its type and options. */
interface Mount {
  root: string;
  mountPoint: string;
  type: string;
  superOptions: string[];
}

function parseMounts(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (before === undefined || after === undefined) continue;
    const fields = before.split(' ');
    const [type, , superOptions] = after.split(' ');
    if (fields[3] === undefined || fields[4] === undefined || type === undefined) continue;
    mounts.push({
      root: fields[3],
      mountPoint: fields[4],
      type,
      superOptions: (superOptions ?? '').split(','),
    });
  }
  return mounts;
}

/** `cgroupPath` (from /proc/self/cgroup) as a folder under `mount`, or undefined when it lies outside. */
function folderOf(mount: Mount, cgroupPath: string): string | undefined {
  const root = mount.root === '/' ? '' : mount.root;
  if (cgroupPath !== root && !cgroupPath.startsWith(`${root}/`)) return undefined;
  return path.join(mount.mountPoint, cgroupPath.slice(root.length));
}

/** Where this process could make `pids` cgroups: the v2 folder when pids is enabled for its children, else v1's. */
async function candidates(): Promise<string[]> {
  const [cgroups, mountinfo] = await Promise.all([
    readFile('/proc/self/cgroup', 'utf8'),
    readFile('/proc/self/mountinfo', 'utf8'),
  ]);
  const mounts = parseMounts(mountinfo);
  const found: string[] = [];
  for (const line of cgroups.split('\n')) {
    const [, controllers, cgroupPath] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers === undefined || cgroupPath === undefined) continue;
    if (controllers === '') {
      const mount = mounts.find((entry) => entry.type === 'cgroup2');
      const folder = mount === undefined ? undefined : folderOf(mount, cgroupPath);
      if (folder === undefined) continue;
      const enabled = await readFile(path.join(folder, 'cgroup.subtree_control'), 'utf8').catch(() => '');
      if (enabled.split(/\s+/).includes('pids')) found.unshift(folder);
    } else if (controllers.split(',').includes('pids')) {
      const mount = mounts.find((entry) => entry.type === 'cgroup' && entry.superOptions.includes('pids'));
      const folder = mount === undefined ? undefined : folderOf(mount, cgroupPath);
      if (folder !== undefined) found.push(folder);
    }
  }
  return found;
}

/** Makes (and removes) one child cgroup of `parent`; true when it has a writable `pids.max`. */
async function works(parent: string): Promise<boolean> {
  const probe = path.join(parent, `switchyard-probe-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    await mkdir(probe);
  } catch {
    return false;
  }
  try {
    await writeFile(path.join(probe, 'pids.max'), 'max');
    return true;
  } catch {
    return false;
  } finally {
    await rmdir(probe).catch(() => undefined);
  }
}

/** `switchyard-<pid>-<8 hex>`, as `CommandCgroup.create` names a cgroup (`-probe-` for `works`). */
const COMMAND_CGROUP_NAME = /^switchyard-(?:probe-)?(\d+)-[0-9a-f]{8}$/;

/** Whether a process of this pid exists (in this PID namespace). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the empty cgroups under `parent` that workers which no longer run left behind (a worker
 * killed while a command ran cannot remove its command's cgroup), made at least `minimumAgeMs`
 * ago: the age keeps a cgroup that a worker of another PID namespace (whose pid means nothing
 * here) has just made, and not yet joined, out of reach. A cgroup that still holds a process is
 * never removed: the kernel refuses (EBUSY).
 *
 * Contract: never throws; resolves with how many it removed.
 */
export async function removeStaleCgroups(parent: string, minimumAgeMs = 60_000): Promise<number> {
  let removed = 0;
  const names = await readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(COMMAND_CGROUP_NAME.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processExists(pid)) continue;
    const folder = path.join(parent, name);
    try {
      if (Date.now() - (await stat(folder)).ctimeMs < minimumAgeMs) continue;
      await rmdir(folder);
      removed += 1;
    } catch {
      // Still in use, or already gone.
    }
  }
  return removed;
}

let parentSearch: Promise<string | undefined> | undefined;

/**
 * The cgroup folder under which a root worker makes one `pids` cgroup per sandboxed command, found
 * once per process: cgroup v2 where the `pids` controller is enabled for the children of the
 * worker's own cgroup, else the cgroup v1 `pids` hierarchy. Undefined for a worker that is not root
 * (its commands' processes are limited by `RLIMIT_NPROC` in their user namespace instead) and where
 * neither can be written.
 *
 * Why only for root: the kernel does not apply `RLIMIT_NPROC` to uid 0, and a root worker's
 * sandboxed commands run as uid 0 (without capabilities) in their user namespace.
 *
 * Once found, the empty cgroups that stopped workers left there are removed in the background
 * (`removeStaleCgroups`).
 */
export function pidsCgroupParent(): Promise<string | undefined> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return Promise.resolve(undefined);
  parentSearch ??= (async () => {
    for (const folder of await candidates().catch(() => [])) {
      if (await works(folder)) {
        void removeStaleCgroups(folder);
        return folder;
      }
    }
    return undefined;
  })();
  return parentSearch;
}

/** One command's `pids` cgroup: its processes and threads together are limited to `pids.max`. */
export class CommandCgroup {
  private constructor(
    /** The cgroup's folder. */
    readonly folder: string,
  ) {}

  /**
   * Makes a cgroup under `parent` allowing `maxProcesses` tasks.
   *
   * Contract: throws the file system's error when the cgroup cannot be made or limited.
   */
  static async create(parent: string, maxProcesses: number): Promise<CommandCgroup> {
    const folder = path.join(parent, `switchyard-${process.pid}-${randomUUID().slice(0, 8)}`);
    await mkdir(folder);
    try {
      await writeFile(path.join(folder, 'pids.max'), String(maxProcesses));
    } catch (error) {
      await rmdir(folder).catch(() => undefined);
      throw error;
    }
    return new CommandCgroup(folder);
  }

  /** The file a process writes its pid to to join the cgroup (its later children are in it too). */
  get processesFile(): string {
    return path.join(this.folder, 'cgroup.procs');
  }

  /**
   * Moves the process `pid` (and its threads) into the cgroup; the children it forks afterwards are
   * in it from their start. The kernel may wait for an RCU grace period here (tens of milliseconds
   * on cgroup v1), on a thread of libuv's pool, not the event loop.
   *
   * Contract: throws the file system's error when the process cannot be moved.
   */
  async join(pid: number): Promise<void> {
    await writeFile(this.processesFile, String(pid));
  }

  /**
   * Allows `maxProcesses` tasks from now on (a fork past it fails with EAGAIN; tasks already in
   * the cgroup stay).
   *
   * Contract: throws the file system's error when the limit cannot be written.
   */
  async limit(maxProcesses: number): Promise<void> {
    await writeFile(path.join(this.folder, 'pids.max'), String(maxProcesses));
  }

  /** Whether a fork was refused for reaching `pids.max` (`pids.events`: `max N`). */
  async limitReached(): Promise<boolean> {
    const events = await readFile(path.join(this.folder, 'pids.events'), 'utf8').catch(() => '');
    const count = /^max (\d+)$/m.exec(events)?.[1];
    return count !== undefined && Number(count) > 0;
  }

  /**
   * Removes the cgroup once it is empty: the namespace's processes are gone when the command has
   * ended, but the kernel may take a moment to release the last ones.
   */
  async remove(): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      try {
        await rmdir(this.folder);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (code !== 'EBUSY') return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  }

  /**
   * Removes the cgroup without returning to the event loop (for a process that is exiting), waiting
   * up to `waitMs` for its last process to leave it; true when it is gone.
   */
  removeNow(waitMs: number): boolean {
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const until = performance.now() + waitMs;
    for (;;) {
      try {
        rmdirSync(this.folder);
        return true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return true;
        if (code !== 'EBUSY' || performance.now() >= until) return false;
        Atomics.wait(pause, 0, 0, 1);
      }
    }
  }
}
