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
 * const database = await createPostgresDatabase(postgresUrl ?? '');
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

/** One backend a suite runs on: its describe title, whether it runs here, and a fresh database. */
export interface TestBackend {
  /** `embedded PGlite`, or the PostgreSQL title (saying so when it is skipped). */
  title: string;
  /** False when no PostgreSQL server is available: `describe.runIf(backend.available)`. */
  available: boolean;
  /** A fresh database for one test file. */
  create(): Promise<TestDatabase>;
}

/**
 * Both backends, for suites that run the same tests on each.
 *
 * @example
 * for (const backend of testBackends) {
 *   describe.runIf(backend.available)(`${backend.title}: schedules`, () => { ... });
 * }
 */
export const testBackends: readonly TestBackend[] = [
  { title: 'embedded PGlite', available: true, create: createPgliteDatabase },
  {
    title: postgresTitle,
    available: postgresUrl !== null,
    create: () => createPostgresDatabase(postgresUrl ?? ''),
  },
];
