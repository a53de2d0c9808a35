import type { ChildProcess } from 'node:child_process';
import type { OutputReader } from './output-reader';
import type { LimitExceeded } from './sandbox-monitor';

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
  /** The process spawned: `bash`, or `bwrap` around it. */
  readonly child: ChildProcess;
  /** Its output: its stdout and stderr, one socket. */
  readonly output: OutputReader;
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
  /**
   * Resolves when a sandboxed command went over one of its limits; it has been killed then (no grace:
   * the init, and with it the namespace). Never resolves for an unconfined command.
   */
  readonly limitExceeded: Promise<LimitExceeded>;
  /** After the end: what watching the command found. */
  facts(): CommandFacts;
}

/** What watching a command found, once it ended. */
export interface CommandFacts {
  /** The sandbox's init reported the shell's end (false: the sandbox did not start, or was killed first). */
  readonly initReported: boolean;
  /** Bytes its processes wrote to disk, as the init reported (sandboxed commands). */
  readonly wroteBytes: number | undefined;
  /** The most memory seen (private memory plus tmpfs), in bytes, when watched. */
  readonly peakMemoryBytes: number | undefined;
}
