import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

import { ensurePgliteTemplate } from './pglite-template';
import type {} from './provided-context';

const run = promisify(execFile);
const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../scripts/test-postgres.sh',
);

function hasServerBinaries(): boolean {
  const fromPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((directory) => directory !== '' && existsSync(path.join(directory, 'initdb')));
  if (fromPath) return true;
  try {
    return readdirSync('/usr/lib/postgresql').some((version) =>
      existsSync(path.join('/usr/lib/postgresql', version, 'bin', 'initdb')),
    );
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * Builds the PGlite template (`ensurePgliteTemplate`), then gives the tests a PostgreSQL server: `SWITCHYARD_TEST_DATABASE_URL` when set (CI starts one), else
 * a throw-away cluster started here with scripts/test-postgres.sh and stopped afterwards, else none
 * (the PostgreSQL half then reports itself skipped). Used as a vitest `globalSetup`; the test files read
 * the URL with `inject('postgresUrl')` (or the `postgresUrl` export of this package).
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@switchyard/test-databases/global-setup'] } });
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The PGlite template is built here, once, before any test file runs: initdb takes seconds on a
  // loaded machine, and a test or hook must never pay for it.
  await ensurePgliteTemplate();
  const given = process.env.SWITCHYARD_TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresUrl', given);
    return async () => {};
  }
  if (!hasServerBinaries()) {
    console.warn(
      `${path.basename(project.config.root)}: PostgreSQL tests skipped: no PostgreSQL server binaries (initdb) found`,
    );
    project.provide('postgresUrl', null);
    return async () => {};
  }
  const directory = await mkdtemp(path.join(os.tmpdir(), 'switchyard-test-pg-'));
  const { stdout } = await run('bash', [script, 'start', directory, String(await freePort())]);
  project.provide('postgresUrl', stdout.trim());
  return async () => {
    await run('bash', [script, 'stop', directory]).catch(() => {});
    await rm(directory, { recursive: true, force: true });
  };
}
