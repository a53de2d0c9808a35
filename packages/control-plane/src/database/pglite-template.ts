import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extract } from 'tar';
import { DATA_DIR_LOCK_FILE } from './data-dir-lock';

/** A packed fresh PGlite data directory (`dist/pglite-template.tgz`) and the PGlite version that wrote it. */
export interface PgliteTemplate {
  /** The gzipped tar archive of the data directory. */
  archive: string;
  /** The `@electric-sql/pglite` version that ran initdb for it. */
  pgliteVersion: string;
}

/** Where a seed is unpacked inside the data directory before its entries move into place. */
const SEED_FOLDER = '.switchyard-seed';

function installedPgliteVersion(): string {
  const require = createRequire(import.meta.url);
  const wasm = require.resolve('@electric-sql/pglite/pglite.wasm');
  const manifest = require(path.join(path.dirname(wasm), '../package.json')) as { version: string };
  return manifest.version;
}

/** The nearest folder at or above `start` holding a package.json: this package's root. */
function packageRoot(start: string): string {
  let folder = start;
  while (!existsSync(path.join(folder, 'package.json'))) {
    const parent = path.dirname(folder);
    if (parent === folder) return start;
    folder = parent;
  }
  return folder;
}

/**
 * The template the package's build wrote in `dist` (`pglite-template.json` and its archive), when
 * it exists and was made by the installed PGlite; `undefined` otherwise (a data directory is then
 * created by PGlite's own initdb, as before).
 */
export async function findPgliteTemplate(
  dist = path.join(packageRoot(path.dirname(fileURLToPath(import.meta.url))), 'dist'),
): Promise<PgliteTemplate | undefined> {
  let recorded: { pglite?: unknown; archive?: unknown };
  try {
    recorded = JSON.parse(await readFile(path.join(dist, 'pglite-template.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof recorded.pglite !== 'string' || typeof recorded.archive !== 'string') return undefined;
  const archive = path.resolve(dist, recorded.archive);
  if (recorded.pglite !== installedPgliteVersion() || !existsSync(archive)) return undefined;
  return { archive, pgliteVersion: recorded.pglite };
}

/**
 * Makes `dataDir` (held by this process, see `lockDataDir`) a fresh PGlite database by unpacking
 * `template`, when it holds no database yet. Returns whether it did.
 *
 * Contract: a directory holding `PG_VERSION` is a database and is left alone; so is one holding
 * anything but the lock file and what an interrupted seed left (entries the template has, and its
 * unpacking folder), which PGlite then handles as before. The archive is unpacked into a folder
 * inside `dataDir`, and its entries move into place with `PG_VERSION` last, so a crash at any point
 * leaves either a complete database or a directory the next start seeds again.
 */
export async function seedPgliteDataDir(
  dataDir: string,
  template: PgliteTemplate | undefined,
): Promise<boolean> {
  if (template === undefined || existsSync(path.join(dataDir, 'PG_VERSION'))) return false;
  const seed = path.join(dataDir, SEED_FOLDER);
  await rm(seed, { recursive: true, force: true });
  const present = (await readdir(dataDir)).filter((name) => name !== DATA_DIR_LOCK_FILE);
  await mkdir(seed);
  try {
    await extract({ file: template.archive, cwd: seed });
    const entries = await readdir(seed);
    if (!present.every((name) => entries.includes(name))) return false;
    for (const name of present) await rm(path.join(dataDir, name), { recursive: true, force: true });
    for (const name of entries.filter((entry) => entry !== 'PG_VERSION')) {
      await rename(path.join(seed, name), path.join(dataDir, name));
    }
    await rename(path.join(seed, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
    return true;
  } finally {
    await rm(seed, { recursive: true, force: true });
  }
}
