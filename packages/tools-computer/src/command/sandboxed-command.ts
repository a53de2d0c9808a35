import type { ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { CommandRun, ShellOutcome } from './command-run';
import { readInitReports } from './init-reports';
import type { OutputReader } from './output-reader';
import { INFO_FD, REPORT_FD } from './sandbox-init';
import { type CommandTotals, type LimitExceeded, SandboxMonitor } from './sandbox-monitor';

/** What watching a sandboxed command needs. */
export interface SandboxedCommandOptions {
  /** `bwrap` running `SANDBOX_COMMAND`, fds 3 and 4 as pipes. */
  child: ChildProcess;
  /** Its output: bubblewrap's stdout and stderr. */
  output: OutputReader;
  /** How `child` ended, listened to from its spawn (a `SandboxProcess`'s `exited`). */
  exited: Promise<ShellOutcome>;
  /** SIGTERM to SIGKILL grace, in ms. */
  graceMs: number;
  /** The totals the command is held to (`SandboxMonitor`). */
  totals: CommandTotals;
}

function kill(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** Waits for `promise`, at most `ms` milliseconds. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** A namespace holds at most this many processes worth walking; the rest die with it anyway. */
const MAX_WALK = 10_000;

/** Direct children of `pid`, from every thread's `children` file; undefined when the kernel has none. */
async function childrenOf(pid: number): Promise<number[] | undefined> {
  let tasks: string[];
  try {
    tasks = await readdir(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const lists = await Promise.all(
    tasks.map((task) =>
      readFile(`/proc/${pid}/task/${task}/children`, 'latin1').catch((error: NodeJS.ErrnoException) =>
        error.code === 'ENOENT' && task === String(pid) ? undefined : '',
      ),
    ),
  );
  if (lists.includes(undefined)) return undefined;
  return lists.flatMap((text) =>
    (text ?? '')
      .split(' ')
      .filter((word) => word !== '')
      .map(Number),
  );
}

/** The pid a process has inside the innermost PID namespace it belongs to (`NSpid`'s last field). */
async function namespacePid(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'latin1');
    const line = status.split('\n').find((entry) => entry.startsWith('NSpid:'));
    return line === undefined ? undefined : Number(line.trim().split(/\s+/).at(-1));
  } catch {
    return undefined;
  }
}

/**
 * Every process of the sandbox but its init, found by walking down from the init: in a PID
 * namespace every process descends from it (orphans are re-parented to it), so this is a handful
 * of reads, never a scan of the host. Undefined when the kernel has no `children` files
 * (CONFIG_PROC_CHILDREN).
 */
async function namespaceProcesses(initPid: number): Promise<{ all: number[]; shell: boolean } | undefined> {
  const direct = await childrenOf(initPid);
  if (direct === undefined) return undefined;
  const all = [...direct];
  for (let index = 0; index < all.length && all.length < MAX_WALK; index += 1) {
    all.push(...((await childrenOf(all[index] as number)) ?? []));
  }
  // The shell is the init's first child: PID 2 of the namespace.
  const shell = (await Promise.all(direct.map(namespacePid))).includes(2);
  return { all, shell };
}

/**
 * A command inside the bubblewrap sandbox. The sandbox's init (PID 1 of its own PID namespace)
 * reports on fd 3 (`readInitReports`); bubblewrap reports the init's pid on fd 4. Once the init runs,
 * a `SandboxMonitor` holds the command to its totals and kills the init, ending the namespace, when
 * it goes over one. Stopping sends SIGTERM and SIGCONT to the init's descendants (every process of
 * the namespace) and, after the grace period, SIGKILL to the init: that ends the namespace and every
 * process in it. No scan of the host's `/proc` is needed.
 */
export function startSandboxedCommand(options: SandboxedCommandOptions): CommandRun {
  const { child, graceMs } = options;
  const extraStreams = [child.stdio[REPORT_FD], child.stdio[INFO_FD]] as (Readable | null | undefined)[];
  let initPid: number | undefined;
  let left = 0;
  let initReported = false;
  let exitedYet = false;
  let wroteBytes: number | undefined;
  let monitor: SandboxMonitor | undefined;
  let resolveLimit: (exceeded: LimitExceeded) => void = () => undefined;
  const limitExceeded = new Promise<LimitExceeded>((resolve) => {
    resolveLimit = resolve;
  });
  let resolveInfo: () => void = () => undefined;
  const info = new Promise<void>((resolve) => {
    resolveInfo = resolve;
  });
  let resolveShell: (outcome: ShellOutcome) => void = () => undefined;
  const reported = new Promise<ShellOutcome>((resolve) => {
    resolveShell = resolve;
  });
  const { exited } = options;

  let ready = false;
  // Watching starts once the init runs: before, bubblewrap's child is still setting the sandbox up,
  // and its root (and /proc there) may still be the host's.
  const watch = () => {
    const pid = initPid;
    if (!ready || pid === undefined || monitor !== undefined || exitedYet) return;
    monitor = new SandboxMonitor(pid, options.totals, (exceeded) => {
      // Over a limit there is no grace: the init's death ends the namespace and all in it.
      kill(pid, 'SIGKILL');
      resolveLimit(exceeded);
    });
  };
  const { reportClosed } = readInitReports(child, {
    initPid: (pid) => {
      initPid = pid;
      resolveInfo();
      watch();
    },
    ready: () => {
      ready = true;
      watch();
    },
    exit: (code) => {
      initReported = true;
      resolveShell({ code, signal: null });
    },
    left: (count) => {
      left = count;
    },
    wrote: (bytes) => {
      wroteBytes = bytes;
    },
  });

  const shellEnded = Promise.race([reported, exited]);
  void exited.then(() => {
    exitedYet = true;
    monitor?.stop();
    resolveInfo();
  });

  /** Waits up to `ms` for bubblewrap to exit; then ends the namespace by force. */
  const endWithin = async (ms: number) => {
    await within(exited, ms);
    if (!exitedYet) {
      // SIGKILL to the namespace's init kills every process in it; bwrap then exits.
      kill(initPid, 'SIGKILL');
      child.kill('SIGKILL');
    }
    await exited;
    await within(reportClosed, 1_000);
  };

  return {
    child,
    output: options.output,
    shellEnded,
    stop: async () => {
      if (!exitedYet && initPid === undefined) {
        // bubblewrap reports the init's pid as soon as it has cloned it: moments after the spawn.
        await within(info, 1_000);
      }
      if (initPid === undefined) {
        // No init to reach: bwrap's death takes the sandbox with it (--die-with-parent).
        if (!exitedYet) child.kill('SIGKILL');
        await exited;
        return 0;
      }
      const processes = exitedYet ? { all: [], shell: false } : await namespaceProcesses(initPid);
      if (processes === undefined) {
        // Without `children` files there is no SIGTERM round: the namespace ends now.
        kill(initPid, 'SIGKILL');
      } else {
        for (const pid of processes.all) kill(pid, 'SIGTERM');
        for (const pid of processes.all) kill(pid, 'SIGCONT');
      }
      await endWithin(graceMs);
      return processes === undefined ? 0 : processes.all.length - (processes.shell ? 1 : 0);
    },
    finish: async () => {
      // The init gives leftovers SIGTERM and the grace period itself, then exits.
      await endWithin(graceMs + 1_000);
      return left;
    },
    dispose: () => {
      monitor?.stop();
      for (const stream of extraStreams) stream?.destroy();
    },
    limitExceeded,
    // Killed before its init reported, a command wrote at least what the last look saw.
    facts: () => ({
      initReported,
      wroteBytes: wroteBytes ?? monitor?.diskBytes,
      peakMemoryBytes: monitor?.peakMemoryBytes,
    }),
  };
}
