import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// A fresh PGlite database costs initdb (5-8 s, ~800 MB that wasm never returns); a copy of an
// initialised directory reopens in about a second. The template is built once per PGlite version, in
// a child process, and shared with the control plane's tests (same directory name, same content).
const INIT_SCRIPT = `
import { PGlite } from '@electric-sql/pglite';
const database = await PGlite.create(process.argv[1]);
await database.close();
`;

async function ensureTemplate(): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(packageRoot, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const version = manifest.devDependencies['@electric-sql/pglite'] ?? 'unknown';
  const target = path.join(os.tmpdir(), `switchyard-pglite-template-${version}`);
  if (existsSync(path.join(target, 'PG_VERSION'))) return target;
  const building = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-template-build-'));
  await run(process.execPath, ['--input-type=module', '-e', INIT_SCRIPT, building], { cwd: packageRoot });
  try {
    await rename(building, target);
  } catch {
    await rm(building, { recursive: true, force: true });
  }
  return target;
}

/** A fresh PGlite data directory for one test file: a copy of an initialised template. */
export async function createPgliteDataDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-worker-pglite-'));
  await cp(await ensureTemplate(), dataDir, { recursive: true });
  return dataDir;
}
