import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type ControlPlane, openControlPlane } from '@switchyard/control-plane';
import { createPgliteDataDir } from '@switchyard/test-databases';
import { type CliRun, expectSucceeded, runCli } from './run-cli';

/** What `openControlPlane` takes besides the data directory and the environment. */
type SeedOptions = Omit<Parameters<typeof openControlPlane>[0], 'dataDir' | 'environment'>;

/**
 * A folder the built CLI runs in: its `switchyard.config.json` names a fresh embedded PGlite data
 * directory, which a test fills through the control plane before the CLI reads it.
 */
export class CliWorkspace {
  private constructor(
    /** The folder (the CLI's working directory). */
    readonly cwd: string,
    /** The PGlite data directory its configuration names. */
    readonly dataDir: string,
  ) {}

  /** Makes the data directory and a folder named `switchyard-<prefix>-…` configured to use it. */
  static async create(prefix: string): Promise<CliWorkspace> {
    const dataDir = await createPgliteDataDir();
    const cwd = await mkdtemp(path.join(os.tmpdir(), `switchyard-${prefix}-`));
    await writeFile(path.join(cwd, 'switchyard.config.json'), JSON.stringify({ database: { dataDir } }));
    return new CliWorkspace(cwd, dataDir);
  }

  /**
   * Opens the control plane on the data directory, runs `write` and closes it again: PGlite is
   * single-process, so the CLI, another process, can read only what was written and closed.
   */
  async seed(write: (controlPlane: ControlPlane) => Promise<void>, options: SeedOptions = {}): Promise<void> {
    const controlPlane = await openControlPlane({ ...options, dataDir: this.dataDir, environment: {} });
    try {
      await write(controlPlane);
    } finally {
      await controlPlane.close();
    }
  }

  /** Runs the built CLI with `args` in the folder. */
  run(args: string[]): Promise<CliRun> {
    return runCli(args, { cwd: this.cwd });
  }

  /**
   * Runs the built CLI with `args` in the folder, asserts it succeeded (`expectSucceeded`: nothing on
   * stderr, exit code 0) and returns what it printed on stdout.
   */
  async stdoutOf(args: string[]): Promise<string> {
    const run = await this.run(args);
    expectSucceeded(run);
    return run.stdout;
  }

  /** Removes the folder and the data directory. */
  async remove(): Promise<void> {
    await rm(this.cwd, { recursive: true, force: true });
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
