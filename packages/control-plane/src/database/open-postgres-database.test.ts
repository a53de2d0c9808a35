import {
  createPostgresDatabase,
  postgresTitle,
  postgresUrl,
  type TestDatabase,
} from '@switchyard/test-databases';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database';
import { openPostgresDatabase } from './open-postgres-database';

describe.runIf(postgresUrl !== null)(`${postgresTitle}: the connection pool`, () => {
  let testDatabase: TestDatabase;
  let url: string;

  beforeAll(async () => {
    testDatabase = await createPostgresDatabase(postgresUrl ?? '');
    if (!('databaseUrl' in testDatabase.options)) throw new Error('expected a PostgreSQL database');
    url = testDatabase.options.databaseUrl;
  });
  afterAll(async () => {
    await testDatabase?.dispose();
  });

  /** Connections to this test's own database, as the server counts them. */
  const connections = async (database: Database) =>
    Number(
      (
        await database.query<{ count: string }>(
          'SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database()',
        )
      ).rows[0]?.count,
    );

  it('opens one connection up front, and all of them with fixed', async () => {
    const onDemand = await openPostgresDatabase(url, { maxConnections: 3 });
    try {
      expect(await connections(onDemand)).toBe(1);
    } finally {
      await onDemand.close();
    }
    const fixed = await openPostgresDatabase(url, { maxConnections: 3, fixed: true });
    try {
      expect(await connections(fixed)).toBe(3);
    } finally {
      await fixed.close();
    }
  });
});
