import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../database/database';
import { openPgliteDatabase } from '../database/open-pglite-database';
import { bossDatabase } from './boss-database';

const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as {
  completeJobs(schema: string): string;
  failJobsById(schema: string): string;
};

describe("pg-boss's database", () => {
  let folder: string;
  let database: Database;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-boss-db-'));
    // No pgboss schema in it: every pg-boss statement fails, as on a database that went away.
    database = await openPgliteDatabase(path.join(folder, 'db'));
  }, 120_000);

  afterAll(async () => {
    await database?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('reports a failed completion or failure of a job (which pg-boss does not await) instead of rejecting', async () => {
    const errors: unknown[] = [];
    const guarded = bossDatabase(database, 'pgboss', (error) => errors.push(error));
    const values = ['queue', ['00000000-0000-0000-0000-000000000000'], null];
    expect(await guarded.executeSql(plans.completeJobs('pgboss'), values)).toEqual({
      rows: [{ count: '0' }],
    });
    expect(await guarded.executeSql(plans.failJobsById('pgboss'), values)).toEqual({
      rows: [{ count: '0' }],
    });
    expect(errors).toHaveLength(2);
    expect(String(errors[0])).toMatch(/pgboss\.job/);
  });

  it('passes every other statement and its error through', async () => {
    const errors: unknown[] = [];
    const guarded = bossDatabase(database, 'pgboss', (error) => errors.push(error));
    await expect(guarded.executeSql('SELECT count(*) FROM pgboss.job')).rejects.toThrow(/pgboss\.job/);
    expect(await guarded.executeSql('SELECT 1 AS one')).toMatchObject({ rows: [{ one: 1 }] });
    expect(errors).toEqual([]);
  });
});
