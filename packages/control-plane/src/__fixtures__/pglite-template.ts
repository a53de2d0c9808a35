import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// initdb costs PGlite 5-8 s and ~800 MB that wasm never gives back; a copy of an initialised data
// directory reopens in about a second. So the tests initialise one template per PGlite version, in a
// child process, and copy it.
const INIT_SCRIPT = `
import { PGlite } from '@electric-sql/pglite';
const database = await PGlite.create(process.argv[1]);
await database.close();
`;

let template: Promise<string> | undefined;

async function ensureTemplate(): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(packageRoot, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const version = manifest.dependencies['@electric-sql/pglite'] ?? 'unknown';
  const target = path.join(os.tmpdir(), `switchyard-pglite-template-${version}`);
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

/** A fresh PGlite data directory: a copy of an initialised template. */
export async function copyPgliteTemplate(): Promise<string> {
  template ??= ensureTemplate();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-'));
  await cp(await template, dataDir, { recursive: true });
  return dataDir;
}
