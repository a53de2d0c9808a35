import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeResponsesServer, startFakeResponsesServer } from '@switchyard/testkit';
import { expect } from 'vitest';

/** The built CLI (`pnpm build` first: the worker's turbo `test` task depends on its `build`). */
export const cliPath = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Where CLI tests run `switchyard`: a fresh temporary folder, and the fake model it talks to. */
export interface CliBed {
  /** A folder of its own under the system's temporary folder, removed at `close`. */
  root: string;
  /** A fake Responses server with nothing scripted yet (`reset` scripts it). */
  fake: FakeResponsesServer;
  close(): Promise<void>;
}

/** Opens a `CliBed` whose folder's name starts with `prefix` (see `openForSuite`). */
export async function openCliBed(prefix: string): Promise<CliBed> {
  const root = await mkdtemp(path.join(os.tmpdir(), prefix));
  const fake = await startFakeResponsesServer({ script: [] });
  return {
    root,
    fake,
    close: async () => {
      await fake.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** What a finished `switchyard` child process printed. */
export interface CliRun {
  /** Exit code. */
  code: number | null;
  /** Everything on stdout. */
  stdout: string;
  /** Everything on stderr. */
  stderr: string;
}

/** Asserts that a run printed nothing on stderr (first: a failure then shows what it said) and exited 0. */
export function expectSucceeded(run: CliRun): void {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
}

/** Options of `runCli`. */
export interface RunCliOptions {
  /** Working directory. */
  cwd: string;
  /** The whole environment of the child (nothing is inherited but PATH). */
  env?: Record<string, string>;
  /** Called with stdout so far on each chunk; return text to write to the child's stdin. */
  answer?: (stdout: string) => string | undefined;
  /** Written to stdin at start, then stdin is closed (unless `answer` is given). */
  input?: string;
  /** Options for `node` itself, before the CLI's path (e.g. `['--import', hookURL]`). */
  nodeArguments?: string[];
  /** A command found on the child's PATH to run instead of `node dist/cli.js` (e.g. `switchyard`). */
  command?: string;
}

/** Children started by `runCli` that have not exited yet. */
const running = new Set<ChildProcess>();

/**
 * Kills every `runCli` child still running (a test that timed out leaves its child behind, and a
 * child holding an embedded database would fail the next test for the wrong reason). Run after each
 * test by the suite's setup file.
 */
export async function stopCliChildren(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Runs `node dist/cli.js ...args` (or `command ...args`) as a real child process over pipes (not a TTY). */
export function runCli(args: string[], options: RunCliOptions): Promise<CliRun> {
  const [command, commandArguments] =
    options.command === undefined
      ? [process.execPath, [...(options.nodeArguments ?? []), cliPath, ...args]]
      : [options.command, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArguments, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const reply = options.answer?.(stdout);
      if (reply !== undefined) child.stdin.write(reply);
    });
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    if (options.input !== undefined) child.stdin.write(options.input);
    if (options.answer === undefined) child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}
