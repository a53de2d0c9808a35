import type { ChildProcess } from 'node:child_process';
import type { CommandRun, ShellOutcome } from './command-run';
import type { OutputReader } from './output-reader';
import { ProcessTree } from './process-tree';

/** What starting an unconfined command needs. */
export interface HostCommandOptions {
  /** The process spawned: `bash -lc`, detached (leader of its own group and session). */
  child: ChildProcess;
  /** Its output. */
  output: OutputReader;
  /** `SWITCHYARD_COMMAND_ID=<id>`: in the environment of every process the command starts. */
  marker: string;
  /** SIGTERM to SIGKILL grace, in ms. */
  graceMs: number;
}

function outcomeOf(child: ChildProcess): Promise<ShellOutcome> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  });
}

/**
 * An unconfined command (sandbox off or unavailable): its processes are tracked through `/proc`
 * (one shared asynchronous scan for all running commands) and stopped as a tree.
 */
export function startHostCommand(options: HostCommandOptions): CommandRun {
  const { child, output, marker, graceMs } = options;
  const shellEnded = outcomeOf(child);
  const tree = child.pid === undefined ? undefined : ProcessTree.watch(child.pid, marker);
  const stopAll = async () => {
    const stopped = (await tree?.terminate(graceMs)) ?? [];
    return stopped.filter((pid) => pid !== child.pid).length;
  };
  return {
    child,
    output,
    shellEnded,
    stop: async () => {
      const count = await stopAll();
      await shellEnded;
      return count;
    },
    finish: stopAll,
    dispose: () => tree?.dispose(),
    // Unconfined commands have no limits of the sandbox's.
    limitExceeded: new Promise(() => undefined),
    facts: () => ({ initReported: false, wroteBytes: undefined, peakMemoryBytes: undefined }),
  };
}
