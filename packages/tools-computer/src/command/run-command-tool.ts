import type { ChildProcess, StdioOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { type AgentToolResult, defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { openDirectoryInHome } from '../paths/agent-home';
import type { ComputerSettings } from '../resolve-computer-settings';
import { bubblewrapCommandArguments, workerCredentialPaths } from './bubblewrap';
import { buildCommandEnvironment } from './command-environment';
import type { CommandRun, ShellOutcome } from './command-run';
import { bundledToolDirectories } from './default-path-prepend';
import { startHostCommand } from './host-command';
import { type CapturedOutput, OutputCapture, type OutputSink } from './output-capture';
import { startSandboxedCommand } from './sandboxed-command';

/** Where `run_command` saves output it had to cut, relative to the home. */
export const COMMAND_OUTPUT_DIRECTORY = '.switchyard/command-output';

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

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`;
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

function openOutputSink(settings: ComputerSettings, commandId: string): () => Promise<OutputSink> {
  return async () => {
    const directory = await openDirectoryInHome(settings.home, COMMAND_OUTPUT_DIRECTORY);
    const name = `${new Date().toISOString().replaceAll(':', '-')}-${commandId.slice(0, 8)}.log`;
    try {
      const handle = await open(
        directory.entry(name),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      return {
        relative: `${COMMAND_OUTPUT_DIRECTORY}/${name}`,
        write: async (chunk) => {
          await handle.write(chunk);
        },
        close: () => handle.close(),
      };
    } finally {
      await directory.close();
    }
  };
}

function streamsClosed(child: ChildProcess): Promise<void> {
  const streams = [child.stdout, child.stderr].filter((stream) => stream !== null);
  return Promise.all(
    streams.map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (stream.closed || stream.destroyed) resolve();
          else stream.once('close', () => resolve());
        }),
    ),
  ).then(() => undefined);
}

function describeEnd(details: RunCommandDetails): string {
  if (details.spawnError !== undefined) return `Command failed to start: ${details.spawnError}`;
  if (details.timedOut) return `Command timed out after ${seconds(details.durationMs)}`;
  if (details.aborted) return `Command stopped after ${seconds(details.durationMs)}`;
  if (details.signal !== null)
    return `Command killed by ${details.signal} after ${seconds(details.durationMs)}`;
  return `Command exited ${details.exitCode} after ${seconds(details.durationMs)}`;
}

function resultText(output: CapturedOutput, details: RunCommandDetails, notes: string[]): string {
  const body = output.totalBytes === 0 ? '(no output)' : output.text.replace(/\n$/, '');
  const lines = [body, ''];
  if (details.timedOut) {
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
  if (!details.timedOut && !details.aborted && details.stoppedProcesses > 0) {
    const count = details.stoppedProcesses;
    lines.push(
      `Stopped ${count} background process${count === 1 ? '' : 'es'} the command left running: processes do not outlive their command.`,
    );
  }
  lines.push(...notes);
  return lines.join('\n');
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

/** How a started command ended: the shell's outcome, why it was stopped, what else was stopped. */
interface CommandEnd {
  outcome: ShellOutcome;
  stopReason: 'timeout' | 'abort' | undefined;
  stoppedProcesses: number;
}

/** Waits for the shell to end, stopping the whole tree on the timeout or the turn's abort. */
async function awaitCommandEnd(run: CommandRun, timeoutMs: number, signal: AbortSignal): Promise<CommandEnd> {
  let stopReason: 'timeout' | 'abort' | undefined;
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
  return { outcome, stopReason, stoppedProcesses };
}

/**
 * Waits (at most a second) for the child's pipes to close, and cuts them when they do not: every
 * writer is gone now, so a process that escaped every check must not hold the call open.
 */
async function closePipes(child: ChildProcess, closed: Promise<void>, notes: string[]): Promise<void> {
  let pipesHeld = false;
  await Promise.race([
    closed,
    new Promise<void>((resolve) =>
      setTimeout(() => {
        pipesHeld = true;
        resolve();
      }, 1_000).unref(),
    ),
  ]);
  if (pipesHeld) {
    child.stdout?.destroy();
    child.stderr?.destroy();
    notes.push(
      'A process outside the command still held its output open; output after this point was not captured.',
    );
  }
}

/** Builds the call's result from how the command ended and what it printed. */
function commandResult(
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
    ...(details.timedOut || details.aborted ? { isError: true } : {}),
  };
}

/** Runs one `run_command` call: check, start, wait (stopping on timeout or abort), collect, report. */
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
  const started = performance.now();
  const capture = new OutputCapture({
    maxBytes: limits.maxOutputBytes,
    maxSavedBytes: limits.maxSavedOutputBytes,
    openSink: openOutputSink(settings, commandId),
  });
  const sandboxed = settings.sandbox.probe !== undefined;
  let run: CommandRun;
  try {
    run = await startCommand(settings, script, environment, commandId, (chunk) => capture.push(chunk));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      content: `The command could not be started: ${message}`,
      isError: true,
      details: emptyDetails(timeoutMs, { spawnError: message, sandboxed }),
    };
  }
  const closed = streamsClosed(run.child);
  const end = await awaitCommandEnd(run, timeoutMs, signal);
  await closePipes(run.child, closed, notes);
  const durationMs = performance.now() - started;
  const output = await capture.finish();
  return commandResult(end, output, { durationMs, timeoutMs, sandboxed }, notes);
}

function emptyDetails(timeoutMs: number, overrides: Partial<RunCommandDetails>): RunCommandDetails {
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

let spawnTurns: Promise<void> = Promise.resolve();

/**
 * Resolves when it is this command's turn to spawn. `spawn` blocks the event loop until the child
 * has exec'd (Node forks, and forking copies the page tables: measured here 6 ms at 40 MB RSS,
 * 35 ms at 850 MB, as a daemon with PGlite has), so commands starting together spawn one per
 * event-loop turn instead of stacking those pauses into one.
 */
function spawnTurn(): Promise<void> {
  const turn = spawnTurns.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  spawnTurns = turn;
  return turn;
}

/** Spawns the command: `bash -lc` directly, or inside bubblewrap when the sandbox is on. */
async function startCommand(
  settings: ComputerSettings,
  script: string,
  environment: Record<string, string>,
  commandId: string,
  onOutput: (chunk: Buffer) => void,
): Promise<CommandRun> {
  const { probe, options } = settings.sandbox;
  const base = { cwd: settings.home.root, env: environment, detached: true };
  // Listen at once: when the child exits, Node resumes (and so discards) whatever output nothing
  // is reading yet.
  const listen = (child: ChildProcess) => {
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    return child;
  };
  if (probe?.bwrapPath === undefined) {
    await spawnTurn();
    const child = listen(
      settings.spawn('bash', ['-lc', script], { ...base, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    return startHostCommand({
      child,
      marker: `SWITCHYARD_COMMAND_ID=${commandId}`,
      graceMs: settings.limits.killGraceMs,
    });
  }
  const args = await bubblewrapCommandArguments(probe, {
    home: settings.home.root,
    hiddenPaths: [...options.hiddenPaths, ...workerCredentialPaths(settings.home.root)],
    exposedPaths: [...settings.pathPrepend, path.dirname(process.execPath), ...bundledToolDirectories()],
    network: options.network,
    graceMs: settings.limits.killGraceMs,
    script,
  });
  // bubblewrap is started with the command's own environment: inside, /proc/1/environ is readable.
  const stdio: StdioOptions = ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'];
  await spawnTurn();
  const child = listen(settings.spawn(probe.bwrapPath, args, { ...base, stdio }));
  return startSandboxedCommand({ child, graceMs: settings.limits.killGraceMs });
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
 * Contract: a non-zero exit is a normal result (the model reads the exit code); a timeout, an abort
 * or a command that cannot start is an `isError` result. Never throws for the model's input.
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
