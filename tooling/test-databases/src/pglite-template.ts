import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
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

async function ensureTemplate(): Promise<string> {
  const target = path.join(os.tmpdir(), `switchyard-pglite-template-${pgliteVersion()}`);
  if (existsSync(path.join(target, 'PG_VERSION'))) return target;
  const building = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-template-build-'));
  await run(process.execPath, ['--input-type=module', '-e', INIT_SCRIPT, building], { cwd: packageRoot });
  try {
    // Atomic: a concurrent test file (or package) that won the race keeps its copy.
    await rename(building, target);
  } catch {
    await rm(building, { recursive: true, force: true });
  }
  return target;
}

/**
 * A fresh PGlite data directory: a copy of an initialised template (the caller removes it).
 *
 * @example
 * const dataDir = await createPgliteDataDir();
 * const controlPlane = await openControlPlane({ dataDir, environment: {} });
 */
export async function createPgliteDataDir(): Promise<string> {
  template ??= ensureTemplate();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-'));
  await cp(await template, dataDir, { recursive: true });
  return dataDir;
}
