import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// initdb costs PGlite 5-8 s and ~800 MB that wasm never gives back; a copy of an initialised data
// directory reopens in about a second. So the tests initialise one template per PGlite version, in a
// child process, and copy it. The template is a bare initdb (no schema): whoever opens a copy runs
// its own migrations, so this package needs nothing from the packages it serves.
const INIT_SCRIPT = `
import { PGlite } from '@electric-sql/pglite';
const database = await PGlite.create(process.argv[1]);
await database.close();
`;

let template: Promise<string> | undefined;

/** The version of the PGlite this package resolves (the one that builds the template). */
export function pgliteVersion(): string {
  let directory = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (directory !== path.dirname(directory)) {
    const manifest = path.join(directory, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (name === '@electric-sql/pglite' && version) return version;
    }
    directory = path.dirname(directory);
  }
  throw new Error('test-databases: cannot find the version of @electric-sql/pglite');
}

/** A builder that holds the build lock longer than this is presumed dead. */
const STALE_BUILD_MS = 10 * 60_000;

/**
 * The initialised template for this PGlite version, built once per machine: every package's test run
 * calls this from its vitest global setup, before any test file starts (so no test or hook pays for
 * initdb, however loaded the machine), and packages tested in parallel wait for the one that builds
 * it instead of each building their own.
 */
export async function ensurePgliteTemplate(): Promise<string> {
  const target = path.join(os.tmpdir(), `switchyard-pglite-template-${pgliteVersion()}`);
  const built = () => existsSync(path.join(target, 'PG_VERSION'));
  if (built()) return target;
  const lock = `${target}.building`;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (built()) return target;
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > STALE_BUILD_MS) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    if (built()) return target;
    const building = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-template-build-'));
    try {
      // --liftoff-only: V8's optimising WebAssembly compiler costs this one-shot process more CPU than
      // it saves.
      await run(process.execPath, ['--liftoff-only', '--input-type=module', '-e', INIT_SCRIPT, building], {
        cwd: packageRoot,
      });
      await rm(target, { recursive: true, force: true });
      await rename(building, target);
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      throw error;
    }
    return target;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * A fresh PGlite data directory: a copy of an initialised template (the caller removes it).
 *
 * @example
 * const dataDir = await createPgliteDataDir();
 * const controlPlane = await openControlPlane({ dataDir, environment: {} });
 */
export async function createPgliteDataDir(): Promise<string> {
  template ??= ensurePgliteTemplate();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-'));
  await cp(await template, dataDir, { recursive: true });
  return dataDir;
}
