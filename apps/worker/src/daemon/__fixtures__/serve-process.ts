import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliPath } from '../../__fixtures__/run-cli';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The repository root: `pnpm switchyard` runs from there. */
export const repositoryRoot = path.resolve(packageRoot, '../..');

/** How a `ServeProcess` is started. */
export interface ServeProcessOptions {
  /** The working directory (default: the worker package). */
  cwd?: string;
  /**
   * Start it as the README says, `pnpm switchyard serve` (pnpm runs the repository's script, which
   * runs the built CLI in `cwd`), instead of `node dist/cli.js serve`.
   */
  viaPnpm?: boolean;
  /** Options for `node` itself, before the CLI's path (e.g. `['--expose-gc', '--import', hookPath]`). */
  nodeArguments?: readonly string[];
}

/** A real `switchyard serve` child process (the built CLI, as `run-cli` runs it). */
export class ServeProcess {
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr (its log). */
  log = '';
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** Resolves with the HTTP API's URL once the daemon listens. */
  readonly ready: Promise<string>;

  readonly #group: boolean;

  constructor(
    args: readonly string[],
    environment: Record<string, string>,
    options: ServeProcessOptions = {},
  ) {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment };
    this.#group = options.viaPnpm === true;
    this.child = options.viaPnpm
      ? // Its own process group, so a signal reaches pnpm and the worker it started alike.
        spawn('pnpm', ['--dir', repositoryRoot, '--silent', 'switchyard', 'serve', ...args], {
          cwd: options.cwd ?? packageRoot,
          env: { ...env, TURBO_TELEMETRY_DISABLED: '1' },
          stdio: ['ignore', 'ignore', 'pipe'],
          detached: true,
        })
      : // --liftoff-only: a daemon that lives seconds, as here, spends about 1.7 s of CPU at start on V8's
        // optimising compiler for the embedded database's WebAssembly, which only a long-running one
        // gets back; the flag changes which machine code runs, not what the daemon does. (Started
        // through pnpm, as the README says, it runs without.)
        spawn(
          process.execPath,
          ['--liftoff-only', ...(options.nodeArguments ?? []), cliPath, 'serve', ...args],
          {
            cwd: options.cwd ?? packageRoot,
            env,
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        );
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.stderr?.on('data', (chunk: Buffer) => {
        this.log += chunk.toString();
        const url = /listening on (http:\/\/\S+)/.exec(this.log)?.[1];
        if (url !== undefined) resolve(url);
      });
      void this.exited.then((code) =>
        reject(new Error(`serve exited (${String(code)}) before listening:\n${this.log}`)),
      );
    });
    this.ready.catch(() => {});
  }

  /** Sends SIGTERM and waits for the exit (SIGKILL after `timeoutMs`). */
  async terminate(timeoutMs = 60_000): Promise<number | NodeJS.Signals | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** Sends `signal` to the process (and, started through pnpm, to its whole group). */
  signal(signal: NodeJS.Signals): void {
    try {
      if (this.#group && this.child.pid !== undefined) process.kill(-this.child.pid, signal);
      else this.child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Writes `<directory>/switchyard.config.json` for a serve process against the fake Responses
 * server: the model `fake-model` without retries, and `settings` (categories, database, serve...).
 * Returns the file's path.
 */
export async function writeServeConfig(
  directory: string,
  settings: Record<string, unknown>,
): Promise<string> {
  const file = path.join(directory, 'switchyard.config.json');
  await writeFile(file, JSON.stringify({ model: { name: 'fake-model', maxRetries: 0 }, ...settings }));
  return file;
}
