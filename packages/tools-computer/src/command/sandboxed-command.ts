import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { INFO_FD, REPORT_FD } from './bubblewrap';
import type { CommandRun, ShellOutcome } from './command-run';

/** What watching a sandboxed command needs. */
export interface SandboxedCommandOptions {
  /** `bwrap` spawned with `bubblewrapCommandArguments`, fds 3 and 4 as pipes. */
  child: ChildProcess;
  /** SIGTERM to SIGKILL grace, in ms. */
  graceMs: number;
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

/** Calls `onLine` for each complete line of a small, trusted control stream. */
function readLines(stream: Readable | null | undefined, onLine: (line: string) => void): void {
  if (stream === null || stream === undefined) return;
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
    // The init writes a few short lines; anything longer is not from it.
    if (buffered.length > 4096) buffered = '';
  });
  stream.on('error', () => undefined);
}

/**
 * A command inside the bubblewrap sandbox. The sandbox's init (PID 1 of its own PID namespace)
 * reports on fd 3 when the shell ends and how many processes it left; bubblewrap reports the init's
 * pid on fd 4. Stopping is signalling that one pid: SIGTERM asks the init to pass SIGTERM to every
 * process of the namespace, SIGKILL ends the namespace and, with it, every process in it. No scan of
 * the host's `/proc` is needed.
 */
export function startSandboxedCommand(options: SandboxedCommandOptions): CommandRun {
  const { child, graceMs } = options;
  const extraStreams = [child.stdio[REPORT_FD], child.stdio[INFO_FD]] as (Readable | null | undefined)[];
  let initPid: number | undefined;
  let stopping = 0;
  let left = 0;
  let resolveInfo: () => void = () => undefined;
  const info = new Promise<void>((resolve) => {
    resolveInfo = resolve;
  });
  let resolveShell: (outcome: ShellOutcome) => void = () => undefined;
  const reported = new Promise<ShellOutcome>((resolve) => {
    resolveShell = resolve;
  });
  const exited = new Promise<ShellOutcome>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  });

  let infoText = '';
  const infoStream = child.stdio[INFO_FD] as Readable | null | undefined;
  infoStream?.setEncoding('utf8');
  infoStream?.on('data', (chunk: string) => {
    if (initPid !== undefined || infoText.length > 4096) return;
    infoText += chunk;
    // bubblewrap's own JSON, e.g. {"child-pid": 12345, "cgroup-namespace": ...}.
    const match = /"child-pid"\s*:\s*(\d+)/.exec(infoText);
    if (match !== null) {
      initPid = Number(match[1]);
      resolveInfo();
    }
  });
  infoStream?.on('error', () => undefined);
  readLines(child.stdio[REPORT_FD] as Readable | null | undefined, (line) => {
    const [word, value] = line.split(' ');
    const number = Number(value);
    if (!Number.isInteger(number)) return;
    if (word === 'exit') resolveShell({ code: number, signal: null });
    else if (word === 'left') left = number;
    else if (word === 'stopping') stopping = number;
  });

  const shellEnded = Promise.race([reported, exited]);
  let exitedYet = false;
  void exited.then(() => {
    exitedYet = true;
    resolveInfo();
  });

  /** Waits up to `ms` for bubblewrap to exit; then ends the namespace by force. */
  const endWithin = async (ms: number) => {
    await within(exited, ms);
    if (!exitedYet) {
      // SIGKILL to the namespace's init kills every process in it; bwrap then exits.
      kill(initPid, 'SIGKILL');
      kill(child.pid, 'SIGKILL');
    }
    await exited;
  };

  return {
    child,
    shellEnded,
    stop: async () => {
      if (!exitedYet && initPid === undefined) {
        // bubblewrap reports the init's pid as soon as it has cloned it: moments after the spawn.
        await within(info, 1_000);
      }
      if (initPid === undefined) {
        // No init to ask: bwrap's death takes the sandbox with it (--die-with-parent).
        kill(child.pid, 'SIGKILL');
      } else {
        kill(initPid, 'SIGTERM');
      }
      await endWithin(graceMs);
      return stopping;
    },
    finish: async () => {
      // The init gives leftovers SIGTERM and the grace period itself, then exits.
      await endWithin(graceMs + 1_000);
      return left;
    },
    dispose: () => {
      for (const stream of extraStreams) stream?.destroy();
    },
  };
}
