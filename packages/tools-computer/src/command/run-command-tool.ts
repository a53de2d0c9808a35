import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type AgentToolResult, defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { homeUsage, noteHomeWritten } from '../paths/home-usage';
import type { ComputerSettings } from '../resolve-computer-settings';
import { type BubblewrapProbe, forgetWorkingProbe, probeBubblewrap } from './bubblewrap';
import { buildCommandEnvironment } from './command-environment';
import {
  type CommandEnd,
  commandResult,
  describeEnd,
  emptyDetails,
  type RunCommandDetails,
} from './command-result';
import type { CommandRun, ShellOutcome } from './command-run';
import { OutputCapture } from './output-capture';
import type { OutputReader } from './output-reader';
import { type CommandTotals, formatBytes, type LimitExceeded } from './sandbox-monitor';
import { openOutputSink } from './saved-outputs';
import { startCommand } from './start-command';

export type { RunCommandDetails } from './command-result';
export { COMMAND_OUTPUT_DIRECTORY } from './saved-outputs';

const schema = z.object({
  command: z.string().describe('The shell command to run with bash, in the agent home.'),
  timeout_ms: z
    .number()
    .int()
    .optional()
    .describe('Stop the command after this many milliseconds (default 60000).'),
});

/** Parameters of `run_command`. */
export type RunCommandParams = z.output<typeof schema>;

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The longest part of a command an activity label shows. */
const LABEL_COMMAND_CHARACTERS = 80;

/**
 * The command as a label shows it: its first line, at most 80 characters, and when that is not all
 * of it, how many characters are not shown. A label must never pass for the whole command: an
 * operator approving "echo hi" must be told that 70,000 more characters follow.
 */
function shortCommand(command: string): string {
  const trimmed = command.trim();
  const lineEnd = trimmed.indexOf('\n');
  const firstLine = lineEnd === -1 ? trimmed : trimmed.slice(0, lineEnd);
  const cut = firstLine.length > LABEL_COMMAND_CHARACTERS || lineEnd !== -1;
  if (!cut) return firstLine;
  const shown = firstLine.slice(0, LABEL_COMMAND_CHARACTERS - 3).trimEnd();
  return `${shown} … (${(trimmed.length - shown.length).toLocaleString('en-US')} more characters)`;
}

/** The checked timeout, or the result that refuses the call before anything starts. */
function checkRunRequest(
  limits: ComputerSettings['limits'],
  params: RunCommandParams,
  signal: AbortSignal,
  notes: string[],
): { timeoutMs: number } | { refused: AgentToolResult<RunCommandDetails> } {
  let timeoutMs = params.timeout_ms ?? limits.defaultTimeoutMs;
  if (timeoutMs <= 0) {
    return {
      refused: {
        content: `timeout_ms must be a positive number of milliseconds, got ${timeoutMs}.`,
        isError: true,
        details: emptyDetails(0, { spawnError: 'invalid timeout_ms' }),
      },
    };
  }
  if (timeoutMs > limits.maxTimeoutMs) {
    notes.push(
      `timeout_ms ${timeoutMs} exceeds the maximum ${limits.maxTimeoutMs}; ${limits.maxTimeoutMs} was used.`,
    );
    timeoutMs = limits.maxTimeoutMs;
  }
  if (params.command.trim() === '') {
    return {
      refused: {
        content: 'The command is empty.',
        isError: true,
        details: emptyDetails(timeoutMs, { spawnError: 'empty command' }),
      },
    };
  }
  if (params.command.includes('\0')) {
    // No command line or environment can hold one, and the sandbox's options are NUL-separated.
    return {
      refused: {
        content: 'The command contains a NUL character (\\0), which no shell command can hold: remove it.',
        isError: true,
        details: emptyDetails(timeoutMs, { spawnError: 'NUL character in the command' }),
      },
    };
  }
  if (signal.aborted) {
    return {
      refused: {
        content: 'The command was not started: the turn was aborted.',
        isError: true,
        details: emptyDetails(timeoutMs, { aborted: true }),
      },
    };
  }
  return { timeoutMs };
}

/** The allowlisted environment and the `bash -lc` script that runs the command in it. */
function prepareScript(
  settings: ComputerSettings,
  command: string,
  commandId: string,
): { environment: Record<string, string>; script: string } {
  const mcporterConfig = path.join(settings.home.root, 'config', 'mcporter.json');
  const environment = buildCommandEnvironment({
    home: settings.home.root,
    sourceEnv: settings.sourceEnv,
    envNames: settings.envNames,
    pathPrepend: settings.pathPrepend,
    commandId,
    ...(existsSync(mcporterConfig) ? { mcporterConfig } : {}),
  });
  // A login shell's profile may reset PATH (Debian's /etc/profile does): put the allowlisted PATH
  // back in front. `exec 2>&1` merges stderr into stdout so the two interleave in true order.
  const allowedPath = shellQuote(environment.PATH ?? '');
  const script = `[ "$PATH" = ${allowedPath} ] || PATH=${allowedPath}:"$PATH"; export PATH; exec 2>&1; ${command}`;
  return { environment, script };
}

/** Waits for the shell to end, stopping the whole tree on the timeout or the turn's abort. */
async function awaitCommandEnd(run: CommandRun, timeoutMs: number, signal: AbortSignal): Promise<CommandEnd> {
  let stopReason: CommandEnd['stopReason'];
  let limitExceeded: LimitExceeded | undefined;
  let stopTimer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopRequested = new Promise<void>((resolve) => {
    stopTimer = setTimeout(() => {
      stopReason ??= 'timeout';
      resolve();
    }, timeoutMs);
    onAbort = () => {
      stopReason ??= 'abort';
      resolve();
    };
    // The turn may have been aborted while the command was starting.
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void run.limitExceeded.then((exceeded) => {
      stopReason ??= 'limit';
      limitExceeded ??= exceeded;
      resolve();
    });
  });

  let outcome: ShellOutcome;
  let stoppedProcesses = 0;
  try {
    const first = await Promise.race([run.shellEnded, stopRequested.then(() => undefined)]);
    if (first === undefined) {
      stoppedProcesses = await run.stop();
      outcome = await run.shellEnded;
    } else {
      outcome = first;
      stopReason = undefined;
      // Whatever the command left running in the background is stopped with it.
      stoppedProcesses = await run.finish();
    }
  } finally {
    clearTimeout(stopTimer);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    run.dispose();
  }
  return {
    outcome,
    stopReason,
    ...(stopReason === 'limit' && limitExceeded !== undefined ? { limitExceeded } : {}),
    stoppedProcesses,
  };
}

/**
 * Waits (at most a second) for the command's output to close, and cuts it when it does not: every
 * writer is gone now, so a process that escaped every check must not hold the call open.
 */
async function closeOutput(output: OutputReader, notes: string[]): Promise<void> {
  let pipesHeld = false;
  await Promise.race([
    output.closed,
    new Promise<void>((resolve) =>
      setTimeout(() => {
        pipesHeld = true;
        resolve();
      }, 1_000).unref(),
    ),
  ]);
  if (pipesHeld) {
    output.destroy();
    notes.push(
      'A process outside the command still held its output open; output after this point was not captured.',
    );
  }
}

/**
 * The sandbox this command runs in. Tools created with a working sandbox always use it (a command
 * is never run unconfined where the sandbox was found working: if it fails, the call fails). Tools
 * created in mode `auto` without one ask the probe again (it answers at once unless its retry time
 * has come): a sandbox that became available is used from then on.
 */
async function sandboxFor(settings: ComputerSettings, notes: string[]): Promise<BubblewrapProbe | undefined> {
  const { probe, options } = settings.sandbox;
  if (probe !== undefined) return probe;
  if (options.mode !== 'auto') return undefined;
  const fresh = await probeBubblewrap(options.bwrapPath, options.network);
  if (!fresh.ok) return undefined;
  notes.push(
    'This command ran in the sandbox: bubblewrap works here now (when these tools were made, it did not).',
  );
  return fresh;
}

/** The totals a sandboxed command is held to: its limits, and the room left in the home's quota. */
async function commandTotals(settings: ComputerSettings, notes: string[]): Promise<CommandTotals> {
  const { limits } = settings;
  const used = await homeUsage(settings.home.root);
  const room = limits.maxHomeBytes - used;
  if (room <= 0) {
    notes.push(
      `The home holds ${formatBytes(used)}, over its disk quota of ${formatBytes(limits.maxHomeBytes)}: delete files (rm); a command that writes to disk is stopped.`,
    );
  }
  return {
    maxProcesses: limits.maxProcesses,
    maxMemoryBytes: limits.maxMemoryBytes,
    maxCpuSeconds: limits.maxCpuSeconds,
    maxDiskBytes: Math.max(0, room),
    homeQuotaBytes: limits.maxHomeBytes,
  };
}

/** The first line bubblewrap printed about a sandbox it could not set up. */
function bubblewrapError(text: string): string | undefined {
  return text
    .split('\n')
    .find((line) => line.startsWith('bwrap: '))
    ?.trim();
}

/** Runs one `run_command` call: check, start, wait (stopping on timeout, abort or a limit), collect, report. */
async function runCommand(
  settings: ComputerSettings,
  params: RunCommandParams,
  signal: AbortSignal,
): Promise<AgentToolResult<RunCommandDetails>> {
  const { limits } = settings;
  const notes: string[] = [];
  const request = checkRunRequest(limits, params, signal, notes);
  if ('refused' in request) return request.refused;
  const { timeoutMs } = request;

  const commandId = randomUUID();
  const { environment, script } = prepareScript(settings, params.command, commandId);
  const probe = await sandboxFor(settings, notes);
  const sandboxed = probe !== undefined;
  // Only a sandboxed command is held to totals (measuring the home's size is a walk of it).
  const totals = sandboxed ? await commandTotals(settings, notes) : undefined;
  const started = performance.now();
  const capture = new OutputCapture({
    maxBytes: limits.maxOutputBytes,
    maxSavedBytes: limits.maxSavedOutputBytes,
    openSink: openOutputSink(settings.home, commandId, limits.maxSavedOutputs),
  });
  let run: CommandRun;
  try {
    run = await startCommand(settings, {
      script,
      environment,
      commandId,
      probe,
      totals,
      onOutput: (chunk) => capture.push(chunk),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      content: `The command could not be started: ${message}`,
      isError: true,
      details: emptyDetails(timeoutMs, { spawnError: message, sandboxed }),
    };
  }
  const end = await awaitCommandEnd(run, timeoutMs, signal);
  await closeOutput(run.output, notes);
  const durationMs = performance.now() - started;
  const output = await capture.finish();
  const facts = run.facts();
  if (sandboxed) {
    const failure =
      facts.initReported || end.stopReason !== undefined ? undefined : bubblewrapError(output.text);
    if (failure !== undefined || end.outcome.error !== undefined) {
      const reason = failure ?? end.outcome.error?.message ?? 'unknown';
      if (probe.bwrapPath !== undefined)
        forgetWorkingProbe(probe.bwrapPath, settings.sandbox.options.network, reason);
      return {
        content: `The sandbox could not start, so the command did not run (it is never run unconfined instead): ${reason}`,
        isError: true,
        details: emptyDetails(timeoutMs, { spawnError: reason, sandboxed, durationMs }),
      };
    }
    noteHomeWritten(settings.home.root, facts.wroteBytes);
    const peak = facts.peakMemoryBytes ?? 0;
    if (end.stopReason === undefined && end.outcome.code !== 0 && peak >= limits.maxMemoryBytes * 0.9) {
      notes.push(
        `Its memory reached ${formatBytes(peak)} of its ${formatBytes(limits.maxMemoryBytes)} limit: an allocation past the limit fails.`,
      );
    }
  }
  return commandResult(end, output, { durationMs, timeoutMs, sandboxed }, notes);
}

/** The sentence of `run_command`'s description that says how commands are confined. */
function sandboxSentence(settings: ComputerSettings): string {
  const { status } = settings.sandbox;
  if (!status.active) {
    return "Commands are not sandboxed: they run with the worker's user and network.";
  }
  return [
    'Commands run in a sandbox: your home is the only writable place (plus a private /tmp that is',
    "emptied after each command), the rest of the file system is read-only, other agents' homes are",
    'not visible, and nothing a command starts outlives it.',
    `Each command may run ${settings.limits.maxProcesses} processes and threads at once, use ${formatBytes(settings.limits.maxMemoryBytes)} of memory`,
    `(what it keeps in /tmp and /dev/shm included) and ${settings.limits.maxCpuSeconds} s of CPU time; the home holds at most`,
    `${formatBytes(settings.limits.maxHomeBytes)}. A command that goes over a limit is killed, and the result says which.`,
    status.network === 'none'
      ? 'There is no network access (not even to services on this machine).'
      : 'The network is available.',
  ].join(' ');
}

/**
 * `run_command { command, timeout_ms? }`: runs `bash -lc <command>` in the agent home with an
 * allowlisted environment, inside the bubblewrap sandbox when it is on; a timeout or an abort stops
 * the whole process tree.
 *
 * Contract: a non-zero exit is a normal result (the model reads the exit code); a timeout, an abort,
 * a sandboxed command killed for going over a limit (`details.limitExceeded`, "killed: memory limit
 * 1 GiB ...") or a command that cannot start is an `isError` result. Never throws for the model's input.
 */
export function createRunCommandTool(
  settings: ComputerSettings,
): WorkerAgentTool<RunCommandParams, RunCommandDetails> {
  return defineWorkerTool({
    name: 'run_command',
    description: [
      'Run a shell command with bash (login shell) in your home directory and return its output',
      '(stdout and stderr interleaved), exit code and duration.',
      `The default timeout is ${settings.limits.defaultTimeoutMs} ms (at most ${settings.limits.maxTimeoutMs} ms via timeout_ms);`,
      'on timeout every process the command started is stopped, and so is anything it leaves running',
      'in the background. Long output keeps its head and tail and the full output is saved in the home.',
      'Standard input is empty.',
      sandboxSentence(settings),
    ].join(' '),
    schema,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: ({ command }) => `Running \`${shortCommand(command)}\``,
    describeCompletedActivity: (_params, result) =>
      result.details === undefined ? 'Command finished' : describeEnd(result.details),
    execute: (params, context) => runCommand(settings, params, context.signal),
  });
}
