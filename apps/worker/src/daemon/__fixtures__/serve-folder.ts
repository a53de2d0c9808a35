import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type ControlPlane, openControlPlane } from '@switchyard/control-plane';
import {
  createPgliteDatabase,
  createPostgresDatabase,
  postgresTitle,
  postgresUrl,
  type TestDatabase,
} from '@switchyard/test-databases';
import {
  type FakeResponsesServer,
  type FakeResponsesServerOptions,
  startFakeResponsesServer,
} from '@switchyard/testkit';
import { openForSuite } from '../../__fixtures__/open-for-suite';
import { ServeProcess, type ServeProcessOptions, writeServeConfig } from './serve-process';

/**
 * The database of a `ServeFolder`: a fresh embedded PGlite data directory, a fresh database on the
 * test PostgreSQL server, or none (a process without `database` settings makes its own under
 * `<cwd>/.switchyard`).
 */
export type ServeFolderDatabase = 'pglite' | 'postgres' | 'none';

/**
 * The two backends a serve test runs on, each with its suite title and whether it runs here (the
 * PostgreSQL half needs a test server: `SWITCHYARD_TEST_DATABASE_URL`).
 */
export const SERVE_BACKENDS: ReadonlyArray<{
  database: 'pglite' | 'postgres';
  title: string;
  runs: boolean;
}> = [
  { database: 'pglite', title: 'PGlite', runs: true },
  { database: 'postgres', title: postgresTitle, runs: postgresUrl !== null },
];

/** How `ServeFolder.serveOnFakeModel` starts its process. */
export interface FakeModelServeOptions {
  /** The fake Responses server's script. */
  script: FakeResponsesServerOptions['script'];
  /** The configuration besides the database (`writeConfig`): categories, `serve`, ... */
  settings: Record<string, unknown>;
  /** More `serve` arguments, after `--port 0 --config <file>`. */
  args?: readonly string[];
  /** Runs once the folder exists, before the process starts: what it must find at start-up. */
  prepare?: (folder: ServeFolder) => Promise<unknown>;
  /** How the process is started (`ServeProcessOptions`: node's own arguments, ...). */
  process?: ServeProcessOptions;
  /** With `serveForSuite`: how long `remove()` gives the process to stop (default its own, 60 s). */
  removeTimeoutMs?: number;
}

/** One `switchyard serve` process on a fake model in its own folder (`ServeFolder.serveOnFakeModel`). */
export interface FakeModelServe {
  /** The folder; `folder.remove()` stops the process and closes the fake model. */
  folder: ServeFolder;
  /** The configuration file's path. */
  config: string;
  /** The fake Responses server (its `requests` are what the process sent). */
  fake: FakeResponsesServer;
  /** The process. */
  serve: ServeProcess;
  /** The HTTP API's URL. */
  url: string;
}

/** A fresh test database of `backend` for serve processes (PostgreSQL: on the test server). */
export function createServeDatabase(backend: 'pglite' | 'postgres'): Promise<TestDatabase> {
  return backend === 'pglite' ? createPgliteDatabase() : createPostgresDatabase(postgresUrl ?? '');
}

/**
 * A fresh folder for real `switchyard serve` processes, the database they share, the fake Responses
 * servers they talk to, and the processes started in it. `remove()` stops every process, then closes
 * the servers and deletes the database and the folder.
 */
export class ServeFolder {
  /** The processes `start` started, in order. */
  readonly processes: ServeProcess[] = [];
  readonly #fakes: FakeResponsesServer[] = [];

  private constructor(
    /** The folder (`switchyard-<prefix>-…` in the system's temporary folder). */
    readonly path: string,
    private readonly database: TestDatabase | undefined,
  ) {}

  /**
   * A fresh folder on embedded PGlite with its configuration (`settings`), a fake model running
   * `script`, and one `switchyard serve` process on them, listening on a free port. Removes the folder
   * again when any step fails.
   */
  static async serveOnFakeModel(prefix: string, options: FakeModelServeOptions): Promise<FakeModelServe> {
    const folder = await ServeFolder.create(prefix, 'pglite');
    try {
      await options.prepare?.(folder);
      const config = await folder.writeConfig(options.settings);
      const fake = await folder.startFakeModel({ script: options.script });
      const args = ['--port', '0', '--config', config, ...(options.args ?? [])];
      const { serve, url } = await folder.startOnFakeModel(fake, args, {}, options.process);
      return { folder, config, fake, serve, url };
    } catch (error) {
      await folder.remove();
      throw error;
    }
  }

  /** Makes the database, then the folder `switchyard-<prefix>-…`. */
  static async create(prefix: string, database: ServeFolderDatabase): Promise<ServeFolder> {
    const created = database === 'none' ? undefined : await createServeDatabase(database);
    try {
      return new ServeFolder(await mkdtemp(path.join(os.tmpdir(), `switchyard-${prefix}-`)), created);
    } catch (error) {
      await created?.dispose();
      throw error;
    }
  }

  /** How `openControlPlane` reaches the database. */
  get databaseOptions(): TestDatabase['options'] {
    if (this.database === undefined) throw new Error('this serve folder has no database of its own');
    return this.database.options;
  }

  /** The configuration's `database` section for the database. */
  get databaseSettings(): { dataDir: string } | { url: string } {
    const options = this.databaseOptions;
    return 'dataDir' in options ? { dataDir: options.dataDir } : { url: options.databaseUrl };
  }

  /**
   * Writes the folder's `switchyard.config.json` (`writeServeConfig`: the fake model) with the
   * database's settings and `settings`; returns its path.
   */
  writeConfig(settings: Record<string, unknown>): Promise<string> {
    return writeServeConfig(this.path, { database: this.databaseSettings, ...settings });
  }

  /**
   * Opens a control plane on the database for the test to read and write. PGlite is one process's
   * database: close it before a process starts on it.
   */
  openControlPlane(): Promise<ControlPlane> {
    return openControlPlane({ ...this.databaseOptions, environment: {} });
  }

  /** Starts a fake Responses server for the processes; `remove` closes it once they have stopped. */
  async startFakeModel(options: FakeResponsesServerOptions): Promise<FakeResponsesServer> {
    const fake = await startFakeResponsesServer(options);
    this.#fakes.push(fake);
    return fake;
  }

  /** Starts a `switchyard serve` process (see `ServeProcess`); `remove` stops it if it still runs. */
  start(
    args: readonly string[],
    environment: Record<string, string>,
    options: ServeProcessOptions = {},
  ): ServeProcess {
    const serve = new ServeProcess(args, environment, options);
    this.processes.push(serve);
    return serve;
  }

  /**
   * Starts a process against a fake Responses server (`baseURL`, model `fake-model`) and waits until
   * it listens. `environment` adds to or overrides those variables.
   */
  async startOnFakeModel(
    fake: { baseURL: string },
    args: readonly string[],
    environment: Record<string, string> = {},
    options: ServeProcessOptions = {},
  ): Promise<{ serve: ServeProcess; url: string }> {
    const serve = this.start(
      args,
      { OPENAI_BASE_URL: fake.baseURL, SWITCHYARD_MODEL: 'fake-model', ...environment },
      options,
    );
    return { serve, url: await serve.ready };
  }

  /**
   * Stops every process (SIGTERM, SIGKILL after `timeoutMs`), closes the fake servers, then removes
   * the database and the folder. A test's own control plane on the database must be closed first.
   */
  async remove(timeoutMs = 60_000): Promise<void> {
    await Promise.all(this.processes.map((serve) => serve.terminate(timeoutMs)));
    await Promise.all(this.#fakes.map((fake) => fake.close()));
    await this.database?.dispose();
    await rm(this.path, { recursive: true, force: true });
  }
}

/**
 * `ServeFolder.serveOnFakeModel` for the tests of the suite it is called in (`openForSuite`): the
 * process starts before them and its folder is removed after them.
 */
export function serveForSuite(prefix: string, options: FakeModelServeOptions): () => FakeModelServe {
  return openForSuite(() => ServeFolder.serveOnFakeModel(prefix, options), {
    close: (opened) => opened.folder.remove(options.removeTimeoutMs),
  });
}
