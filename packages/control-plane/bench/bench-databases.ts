// The two backends a control-plane benchmark runs on: an embedded PGlite directory, then a database on
// a PostgreSQL server (SWITCHYARD_TEST_DATABASE_URL, else a throw-away cluster started with the
// installed server binaries, else skipped), each created for the run and removed after it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { report } from '@switchyard/bench-kit';
import pg from 'pg';
import { type ControlPlane, type ControlPlaneOptions, openControlPlane } from '../src/index';

const run = promisify(execFile);
const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../scripts/test-postgres.sh',
);

function hasServerBinaries(): boolean {
  const onPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => existsSync(path.join(dir, 'initdb')));
  return onPath || existsSync('/usr/lib/postgresql');
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
 * Runs `benchmark` on a fresh control plane on embedded PGlite (label `PGlite`), then on PostgreSQL
 * (label `PostgreSQL`), closing and removing each afterwards.
 */
export async function onEachBackend(
  options: Omit<ControlPlaneOptions, 'dataDir' | 'databaseUrl' | 'environment'>,
  benchmark: (label: string, controlPlane: ControlPlane) => Promise<void>,
): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-pglite-'));
  try {
    const controlPlane = await openControlPlane({ ...options, dataDir, environment: {} });
    try {
      await benchmark('PGlite', controlPlane);
    } finally {
      await controlPlane.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }

  let adminUrl = process.env.SWITCHYARD_TEST_DATABASE_URL || undefined;
  let serverDir: string | undefined;
  if (adminUrl === undefined && hasServerBinaries()) {
    serverDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-pg-'));
    adminUrl = (await run('bash', [script, 'start', serverDir, String(await freePort())])).stdout.trim();
  }
  if (adminUrl === undefined) {
    report('PostgreSQL: skipped: no PostgreSQL server binaries', '-');
    return;
  }
  const database = `switchyard_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  try {
    const controlPlane = await openControlPlane({ ...options, databaseUrl: url.toString(), environment: {} });
    try {
      await benchmark('PostgreSQL', controlPlane);
    } finally {
      await controlPlane.close();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    if (serverDir !== undefined) {
      await run('bash', [script, 'stop', serverDir]);
      await rm(serverDir, { recursive: true, force: true });
    }
  }
}
