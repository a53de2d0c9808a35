import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPgliteDataDir } from '@switchyard/test-databases';

/**
 * How the tests start the worker: the repository's `pnpm switchyard` entry (`scripts/switchyard.mjs`),
 * which runs the worker's built CLI, or the script `SWITCHYARD_CLI` names. The console cannot depend
 * on the worker's package (the worker depends on the console's build to bundle it): turbo builds the
 * worker before this package's `test` task instead (see the README's "Build and test").
 */
export const switchyardEntry =
  process.env.SWITCHYARD_CLI ?? fileURLToPath(new URL('../../../../scripts/switchyard.mjs', import.meta.url));

/** How a `ServeDaemon` starts. */
export interface ServeDaemonOptions {
  /** Names its temporary folder (`switchyard-<prefix>-…`). */
  prefix: string;
  /** The fake Responses server's base URL (`…/v1`): the daemon's model is `fake-model` there. */
  modelURL: string;
  /** `switchyard.config.json` besides the model and the database, given the daemon's folder. */
  settings: (folder: string) => Record<string, unknown>;
  /** More environment variables (tokens); the child inherits only `PATH` and `HOME`. */
  environment?: Record<string, string>;
  /** More `serve` arguments, after `--config <file>` (e.g. `['--scripted-model']`). */
  serveArguments?: readonly string[];
}

/**
 * A real `switchyard serve` child process in a fresh folder (its working directory and configuration)
 * on a fresh embedded PGlite database (a copy of the test template), listening on a free port.
 *
 * Contract: `start` resolves once the daemon says it listens, and rejects with its log when it exits
 * before; it leaves nothing behind when it fails. `stop` ends the process (SIGTERM, then SIGKILL after
 * `timeoutMs`) and removes the folder and the database, whatever state the process is in.
 */
export class ServeDaemon {
  private constructor(
    /** Its folder: configuration, agent homes. */
    readonly folder: string,
    /** The PGlite data directory. */
    private readonly dataDir: string,
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    /** Its URL, `http://127.0.0.1:<port>`. */
    readonly url: string,
  ) {}

  /** Starts the daemon and waits until it listens. */
  static async start(options: ServeDaemonOptions): Promise<ServeDaemon> {
    const dataDir = await createPgliteDataDir();
    const folder = await mkdtemp(path.join(os.tmpdir(), `switchyard-${options.prefix}-`));
    let child: ChildProcess | undefined;
    try {
      const config = path.join(folder, 'switchyard.config.json');
      const settings = {
        model: { name: 'fake-model', maxRetries: 0 },
        database: { dataDir },
        ...options.settings(folder),
      };
      await writeFile(config, JSON.stringify(settings));
      // --liftoff-only: a daemon that lives seconds spends more CPU on V8's optimising compiler for the
      // embedded database's WebAssembly than it gets back; it changes which machine code runs, not what
      // the daemon does.
      child = spawn(
        process.execPath,
        ['--liftoff-only', switchyardEntry, 'serve', '--config', config, ...(options.serveArguments ?? [])],
        {
          cwd: folder,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            OPENAI_BASE_URL: options.modelURL,
            SWITCHYARD_MODEL: 'fake-model',
            OPENAI_API_KEY: 'test',
            ...options.environment,
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      const exited = exitOf(child);
      const url = await listeningURL(child);
      return new ServeDaemon(folder, dataDir, child, exited, url);
    } catch (error) {
      if (child !== undefined) await stopChild(child, 10_000);
      await Promise.all([removeFolder(folder), removeFolder(dataDir)]);
      throw error;
    }
  }

  /** Ends the process and removes its folder and database. */
  async stop(timeoutMs = 10_000): Promise<void> {
    await stopChild(this.child, timeoutMs, this.exited);
    await Promise.all([removeFolder(this.folder), removeFolder(this.dataDir)]);
  }
}

/**
 * Reads the daemon's log (stderr) until it names its URL. Rejects with the whole log once the process
 * has ended and its stderr is closed (`close`, not `exit`: the last lines may still be on their way).
 */
function listeningURL(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(log)?.[1];
      if (url === undefined) return;
      // What it logs from now on is not read, but still drained so the daemon never blocks on the pipe.
      child.stderr?.off('data', onData).resume();
      child.off('close', onClose);
      resolve(url);
    };
    const onClose = (code: number | null, signal: NodeJS.Signals | null) =>
      reject(new Error(`serve exited (${String(signal ?? code)}) before listening:\n${log}`));
    child.stderr?.on('data', onData);
    child.once('close', onClose);
  });
}

async function stopChild(child: ChildProcess, timeoutMs: number, exited = exitOf(child)): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** Resolves when the process has exited (from now on: call it before the exit can happen). */
function exitOf(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function removeFolder(folder: string): Promise<void> {
  return rm(folder, { recursive: true, force: true });
}
