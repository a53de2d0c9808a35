import type { ChildProcess } from 'node:child_process';

/** How a command's shell ended. */
export interface ShellOutcome {
  /** Its exit code, or null when it ended by a signal or never started. */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
  /** Why it could not start. */
  error?: Error;
}

/** One running command, sandboxed or not: what `run_command` waits on and stops. */
export interface CommandRun {
  /** The process spawned: `bash`, or `bwrap` around it. Its stdout and stderr carry the output. */
  readonly child: ChildProcess;
  /** Resolves when the command's shell has ended (or could not start). */
  readonly shellEnded: Promise<ShellOutcome>;
  /**
   * After a timeout or an abort: stops every process of the command (SIGTERM and SIGCONT, SIGKILL
   * after the grace period) and resolves, once none is left, with how many were running besides
   * the shell.
   */
  stop(): Promise<number>;
  /**
   * After the shell ended: stops what it left running the same way and resolves with how many
   * processes that was.
   */
  finish(): Promise<number>;
  /** Releases what the run holds (timers, scans, extra pipes). */
  dispose(): void;
}
