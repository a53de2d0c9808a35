import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
 * before; it leaves nothing behind when it fails. `restart` stops the process (SIGTERM: it drains as
 * at any shutdown) and starts another on the same folder and database. `stop` ends the process
 * (SIGTERM, then SIGKILL after `timeoutMs`) and removes the folder and the database, whatever state
 * the process is in.
 */
export class ServeDaemon {
  private constructor(
    /** Its folder: configuration, agent homes. */
    readonly folder: string,
    /** The PGlite data directory. */
    private readonly dataDir: string,
    private readonly options: ServeDaemonOptions,
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    /** Its URL, `http://127.0.0.1:<port>`. */
    readonly url: string,
    private readonly logText: () => string,
  ) {}

  /** What the process has logged (stderr) so far, its last `LOG_KEPT_CHARACTERS` at most. */
  get log(): string {
    return this.logText();
  }

  /** Starts the daemon and waits until it listens. */
  static async start(options: ServeDaemonOptions): Promise<ServeDaemon> {
    const dataDir = await createPgliteDataDir();
    const folder = await mkdtemp(path.join(os.tmpdir(), `switchyard-${options.prefix}-`));
    try {
      const settings = {
        model: { name: 'fake-model', maxRetries: 0 },
        database: { dataDir },
        ...options.settings(folder),
      };
      await writeFile(configOf(folder), JSON.stringify(settings));
      const { child, exited, url, log } = await spawnServe(folder, options);
      return new ServeDaemon(folder, dataDir, options, child, exited, url, log);
    } catch (error) {
      await Promise.all([removeFolder(folder), removeFolder(dataDir)]);
      throw error;
    }
  }

  /**
   * Stops this process as an operator would (SIGTERM) and starts another on the same folder and
   * database, its `serve` settings changed by `serve`; the new one listens on a new port. This
   * object is done with: stop the one returned.
   */
  async restart(serve: Record<string, unknown> = {}): Promise<ServeDaemon> {
    await stopChild(this.child, 10_000, this.exited);
    const settings = JSON.parse(await readFile(configOf(this.folder), 'utf8')) as Record<string, unknown>;
    const merged = { ...settings, serve: { ...(settings.serve as Record<string, unknown>), ...serve } };
    await writeFile(configOf(this.folder), JSON.stringify(merged));
    const { child, exited, url, log } = await spawnServe(this.folder, this.options);
    return new ServeDaemon(this.folder, this.dataDir, this.options, child, exited, url, log);
  }

  /** Ends the process and removes its folder and database. */
  async stop(timeoutMs = 10_000): Promise<void> {
    await stopChild(this.child, timeoutMs, this.exited);
    await Promise.all([removeFolder(this.folder), removeFolder(this.dataDir)]);
  }
}

function configOf(folder: string): string {
  return path.join(folder, 'switchyard.config.json');
}

/** Starts `serve` on the folder's configuration and waits until it listens; stops it if it fails. */
async function spawnServe(
  folder: string,
  options: ServeDaemonOptions,
): Promise<{ child: ChildProcess; exited: Promise<void>; url: string; log: () => string }> {
  // --liftoff-only: a daemon that lives seconds spends more CPU on V8's optimising compiler for the
  // embedded database's WebAssembly than it gets back; it changes which machine code runs, not what
  // the daemon does.
  const child = spawn(
    process.execPath,
    [
      '--liftoff-only',
      switchyardEntry,
      'serve',
      '--config',
      configOf(folder),
      ...(options.serveArguments ?? []),
    ],
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
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-LOG_KEPT_CHARACTERS);
  });
  try {
    return { child, exited, url: await listeningURL(child, () => log), log: () => log };
  } catch (error) {
    await stopChild(child, 10_000, exited);
    throw error;
  }
}

/** The most of a daemon's log a test keeps (its end): far more than a test's daemon writes. */
const LOG_KEPT_CHARACTERS = 1024 * 1024;

/**
 * Waits until the daemon's log (stderr, as `log` reads it: the pipe is read by another listener,
 * from before this one, so it never blocks the daemon) names its URL. Rejects with the log once the
 * process has ended and its stderr is closed (`close`, not `exit`: the last lines may still be on their way).
 */
function listeningURL(child: ChildProcess, log: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onData = () => {
      const url = /listening on (http:\/\/\S+)/.exec(log())?.[1];
      if (url === undefined) return;
      child.stderr?.off('data', onData);
      child.off('close', onClose);
      resolve(url);
    };
    const onClose = (code: number | null, signal: NodeJS.Signals | null) =>
      reject(new Error(`serve exited (${String(signal ?? code)}) before listening:\n${log()}`));
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
