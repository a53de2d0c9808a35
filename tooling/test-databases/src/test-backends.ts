import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { createPgliteDataDir } from './pglite-template';
import type {} from './provided-context';

/** A database for one test file: a fresh PGlite directory or a fresh database on the shared server. */
export interface TestDatabase {
  /** What to pass to `openControlPlane`. */
  options: { dataDir: string } | { databaseUrl: string };
  /** Removes the directory or drops the database. */
  dispose(): Promise<void>;
}

/** The shared server's admin URL, or null when its half of the suite is skipped. */
export const postgresUrl: string | null = inject('postgresUrl');

/** The describe title for the PostgreSQL half: says so when it is skipped. */
export const postgresTitle = postgresUrl
  ? 'PostgreSQL server'
  : 'PostgreSQL server (skipped: no PostgreSQL server binaries)';

/**
 * A fresh PGlite data directory (a copy of an initialised template), removed by `dispose`.
 *
 * @example
 * const database = await createPgliteDatabase();
 * const controlPlane = await openControlPlane({ ...database.options, environment: {} });
 * // ... and after the test: await controlPlane.close(); await database.dispose();
 */
export async function createPgliteDatabase(): Promise<TestDatabase> {
  const dataDir = await createPgliteDataDir();
  return { options: { dataDir }, dispose: () => rm(dataDir, { recursive: true, force: true }) };
}

/**
 * A fresh database on the shared PostgreSQL server, dropped by `dispose`.
 *
 * @example
 * const backends = [
 *   { title: 'embedded PGlite', available: true, create: createPgliteDatabase },
 *   { title: postgresTitle, available: postgresUrl !== null, create: () => createPostgresDatabase(postgresUrl ?? '') },
 * ];
 * for (const backend of backends) describe.skipIf(!backend.available)(backend.title, () => { ... });
 */
export async function createPostgresDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `switchyard_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    options: { databaseUrl: url.toString() },
    dispose: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
