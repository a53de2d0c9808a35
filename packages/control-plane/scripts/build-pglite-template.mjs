// Builds dist/pglite-template.tgz: the data directory of a fresh PGlite database (what `initdb`
// writes), so that opening a new data directory unpacks it instead of running initdb inside
// WebAssembly on every first start (about 6 s of CPU and 500 MB of memory that wasm never gives
// back). Run after tsup by the package's build; dist/pglite-template.json records the PGlite
// version it was made with, and a data directory is only seeded from a template of the installed
// version.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { create } from 'tar';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const pgliteManifest = path.join(
  path.dirname(require.resolve('@electric-sql/pglite/pglite.wasm')),
  '../package.json',
);
const { version } = JSON.parse(await readFile(pgliteManifest, 'utf8'));

// This process only runs initdb once: V8's optimising WebAssembly compiler costs it more CPU than it
// saves.
setFlagsFromString('--liftoff-only');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-template-'));
try {
  const pglite = await PGlite.create(dataDir);
  await pglite.close();
  const entries = (await readdir(dataDir)).sort();
  await create(
    {
      gzip: { level: 9 },
      file: path.join(packageRoot, 'dist/pglite-template.tgz'),
      cwd: dataDir,
      portable: true,
    },
    entries,
  );
  await writeFile(
    path.join(packageRoot, 'dist/pglite-template.json'),
    `${JSON.stringify({ pglite: version, archive: 'pglite-template.tgz' })}\n`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
