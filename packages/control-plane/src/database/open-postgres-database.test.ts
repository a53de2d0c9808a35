import {
  createPostgresDatabase,
  postgresTitle,
  postgresUrl,
  type TestDatabase,
} from '@switchyard/test-databases';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../__fixtures__/until';
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

  /** Connections of `role` anywhere on the server. */
  const connectionsOf = async (database: Database, role: string) =>
    Number(
      (
        await database.query<{ count: string }>(
          'SELECT count(*) AS count FROM pg_stat_activity WHERE usename = $1',
          [role],
        )
      ).rows[0]?.count,
    );

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
      // The server lists a closed pool's connection until its backend has exited, a moment after
      // the pool's close returned: wait for that, then there are exactly the fixed pool's three.
      await until(
        "the on-demand pool's connection to be gone",
        () => connections(fixed),
        (count) => count <= 3,
      );
      expect(await connections(fixed)).toBe(3);
    } finally {
      await fixed.close();
    }
  });

  it('refuses to start a fixed pool the server cannot give, naming why, and gives back what it opened', async () => {
    const role = `switchyard_limited_${Date.now().toString(36)}`;
    const admin = await openPostgresDatabase(url);
    await admin.exec(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 2`);
    try {
      const limited = new URL(url);
      limited.username = role;
      await expect(
        openPostgresDatabase(limited.toString(), { maxConnections: 3, fixed: true }),
      ).rejects.toThrow(/too many connections for role/);
      // The two it got were closed, not left checked out of a pool that never ends.
      await until(
        `${role}'s connections to close`,
        () => connectionsOf(admin, role),
        (count) => count === 0,
      );
    } finally {
      await admin.exec(`DROP ROLE IF EXISTS ${role}`);
      await admin.close();
    }
  });

  it('prepares a named statement once on its connection and runs it again by name, other statements unnamed', async () => {
    const database = await openPostgresDatabase(url, { maxConnections: 1 });
    try {
      const prepared = async () =>
        (
          await database.query<{ name: string; statement: string }>(
            'SELECT name, statement FROM pg_prepared_statements ORDER BY name',
          )
        ).rows;
      expect(await prepared()).toEqual([]);
      const sums = [];
      for (const value of [1, 2, 3]) {
        sums.push(
          (await database.query<{ n: number }>('SELECT $1::int + 1 AS n', [value], { name: 'plus-one' }))
            .rows[0]?.n,
        );
      }
      expect(sums).toEqual([2, 3, 4]);
      // One connection: the one statement it prepared, once, with the text given.
      expect(await prepared()).toEqual([{ name: 'plus-one', statement: 'SELECT $1::int + 1 AS n' }]);
    } finally {
      await database.close();
    }
  });
});
