import type { AgentToolResult } from '@switchyard/core';
import type { ShellOutcome } from './command-run';
import type { CapturedOutput } from './output-capture';
import type { LimitExceeded } from './sandbox-monitor';

/** What `run_command` records about a call (`details` of its result). */
export interface RunCommandDetails {
  /** The exit code, or null when the command ended by a signal or never started. */
  exitCode: number | null;
  /** The signal that ended the shell, if any. */
  signal: NodeJS.Signals | null;
  /** Wall time from spawn to the end of the last process, in milliseconds. */
  durationMs: number;
  /** The timeout that applied, in milliseconds. */
  timeoutMs: number;
  /** The timeout elapsed and the command was stopped. */
  timedOut: boolean;
  /** The turn was aborted and the command was stopped. */
  aborted: boolean;
  /** The command went over a limit of its sandbox and was killed (`limits.maxMemoryBytes`, ...). */
  limitExceeded?: LimitExceeded;
  /** Processes that were still running and were stopped (after a timeout, an abort, or left behind). */
  stoppedProcesses: number;
  /** Bytes of output (stdout and stderr together). */
  outputBytes: number;
  /** The output was cut to its head and tail. */
  truncated: boolean;
  /** Where the full output was saved (relative to the home), when it was cut. */
  savedOutputPath?: string;
  /** Why the command could not start. */
  spawnError?: string;
  /** The command ran inside the bubblewrap sandbox. */
  sandboxed: boolean;
}

/** How a started command ended: the shell's outcome, why it was stopped, what else was stopped. */
export interface CommandEnd {
  outcome: ShellOutcome;
  stopReason: 'timeout' | 'abort' | 'limit' | undefined;
  limitExceeded?: LimitExceeded;
  stoppedProcesses: number;
}

/** `12.3 s`. */
export function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

/** The completed activity label. */
export function describeEnd(details: RunCommandDetails): string {
  if (details.spawnError !== undefined) return `Command failed to start: ${details.spawnError}`;
  if (details.limitExceeded !== undefined) {
    return `Command ${details.limitExceeded.message} after ${seconds(details.durationMs)}`;
  }
  if (details.timedOut) return `Command timed out after ${seconds(details.durationMs)}`;
  if (details.aborted) return `Command stopped after ${seconds(details.durationMs)}`;
  if (details.signal !== null)
    return `Command killed by ${details.signal} after ${seconds(details.durationMs)}`;
  return `Command exited ${details.exitCode} after ${seconds(details.durationMs)}`;
}

function resultText(output: CapturedOutput, details: RunCommandDetails, notes: string[]): string {
  const body = output.totalBytes === 0 ? '(no output)' : output.text.replace(/\n$/, '');
  const lines = [body, ''];
  if (details.limitExceeded !== undefined) {
    const message = details.limitExceeded.message;
    lines.push(
      `${message[0]?.toUpperCase()}${message.slice(1)} after ${seconds(details.durationMs)}: the command and all its processes were stopped.`,
    );
  } else if (details.timedOut) {
    lines.push(
      `Timed out after ${seconds(details.timeoutMs)}: the command and all its processes were stopped (SIGTERM, then SIGKILL).`,
    );
  } else if (details.aborted) {
    lines.push('Aborted: the command and all its processes were stopped.');
  } else if (details.signal !== null) {
    lines.push(`Killed by signal ${details.signal} after ${seconds(details.durationMs)}.`);
  } else {
    lines.push(`Exit code ${details.exitCode} after ${seconds(details.durationMs)}.`);
  }
  const stoppedEarly = details.timedOut || details.aborted || details.limitExceeded !== undefined;
  if (!stoppedEarly && details.stoppedProcesses > 0) {
    const count = details.stoppedProcesses;
    lines.push(
      `Stopped ${count} background process${count === 1 ? '' : 'es'} the command left running: processes do not outlive their command.`,
    );
  }
  lines.push(...notes);
  return lines.join('\n');
}

/** Builds the call's result from how the command ended and what it printed. */
export function commandResult(
  end: CommandEnd,
  output: CapturedOutput,
  facts: { durationMs: number; timeoutMs: number; sandboxed: boolean },
  notes: string[],
): AgentToolResult<RunCommandDetails> {
  const { outcome, stopReason, stoppedProcesses } = end;
  const details: RunCommandDetails = {
    exitCode: outcome.code,
    signal: outcome.signal,
    durationMs: facts.durationMs,
    timeoutMs: facts.timeoutMs,
    timedOut: stopReason === 'timeout',
    aborted: stopReason === 'abort',
    ...(end.limitExceeded === undefined ? {} : { limitExceeded: end.limitExceeded }),
    stoppedProcesses,
    outputBytes: output.totalBytes,
    truncated: output.truncated,
    ...(output.savedPath === undefined ? {} : { savedOutputPath: output.savedPath }),
    ...(outcome.error === undefined ? {} : { spawnError: outcome.error.message }),
    sandboxed: facts.sandboxed,
  };
  if (outcome.error !== undefined) {
    return {
      content: `The command could not be started: ${outcome.error.message}`,
      isError: true,
      details,
    };
  }
  return {
    content: resultText(output, details, notes),
    details,
    ...(stopReason === undefined ? {} : { isError: true }),
  };
}

/** The details of a call that never started a command. */
export function emptyDetails(timeoutMs: number, overrides: Partial<RunCommandDetails>): RunCommandDetails {
  return {
    exitCode: null,
    signal: null,
    durationMs: 0,
    timeoutMs,
    timedOut: false,
    aborted: false,
    stoppedProcesses: 0,
    outputBytes: 0,
    truncated: false,
    sandboxed: false,
    ...overrides,
  };
}
