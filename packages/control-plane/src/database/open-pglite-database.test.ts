import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database';
import { openPgliteDatabase } from './open-pglite-database';

let dataDir: string;
let database: Database;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-thread-'));
  database = await openPgliteDatabase(dataDir);
  await database.exec('create table items (id int primary key, note text)');
});

afterAll(async () => {
  await database?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('embedded PGlite in its own thread', () => {
  it('keeps the caller’s event loop free while a statement runs', async () => {
    // A statement that keeps PGlite busy for a while; a timer on this loop keeps ticking meanwhile.
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 5);
    const started = performance.now();
    const { rows } = await database.query<{ total: string }>(
      'select sum(n)::text as total from generate_series(1, 3000000) as n',
    );
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(rows).toEqual([{ total: '4500001500000' }]);
    // On the caller's thread the interval could not fire at all until the statement returned.
    expect(ticks).toBeGreaterThan(Math.min(3, elapsed / 50));
  });

  it('keeps a database error’s PostgreSQL fields across the thread', async () => {
    await database.query('insert into items values ($1, $2)', [1, 'first']);
    const error = await database
      .query('insert into items values ($1, $2)', [1, 'again'])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: '23505', constraint: 'items_pkey' });
    expect((error as Error).message).toMatch(/duplicate key/);
  });

  it('commits a transaction whose work resolves and rolls back one whose work throws', async () => {
    const committed = await database.transaction(async (transaction) => {
      await transaction.query('insert into items values ($1, $2)', [2, 'kept']);
      const { rows } = await transaction.query<{ n: number }>('select count(*)::int as n from items');
      return rows[0]?.n;
    });
    expect(committed).toBe(2);
    const failure = new Error('the work failed');
    const thrown = await database
      .transaction(async (transaction) => {
        await transaction.query('insert into items values ($1, $2)', [3, 'dropped']);
        throw failure;
      })
      .catch((caught: unknown) => caught);
    expect(thrown).toBe(failure);
    const { rows } = await database.query<{ id: number }>('select id from items order by id');
    expect(rows.map((row) => row.id)).toEqual([1, 2]);
  });

  it('runs a statement outside a transaction after the open one ends', async () => {
    const order: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inTransaction = database.transaction(async (transaction) => {
      await transaction.query('insert into items values ($1, $2)', [4, 'in transaction']);
      await held;
      order.push('transaction ends');
    });
    // Sent while the transaction is open: PGlite runs it once the transaction has ended.
    const outside = database.query('select count(*)::int as n from items').then(({ rows }) => {
      order.push('outside');
      return rows[0];
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await inTransaction;
    // Rows 1, 2 and 4: the count saw the committed transaction, not its middle.
    expect(await outside).toEqual({ n: 3 });
    expect(order).toEqual(['transaction ends', 'outside']);
  });

  it('carries dates, JSON and scripts of several statements', async () => {
    const at = new Date('2026-12-03T10:00:00.000Z');
    const { rows } = await database.query<{ at: Date; doc: unknown }>(
      'select $1::timestamptz as at, $2::jsonb as doc',
      [at.toISOString(), JSON.stringify({ a: [1, 2] })],
    );
    expect(rows[0]?.at).toBeInstanceOf(Date);
    expect(rows[0]?.at.getTime()).toBe(at.getTime());
    expect(rows[0]?.doc).toEqual({ a: [1, 2] });
    const script = await database.executeSql(
      'create table t2 (x int); insert into t2 values (7); select x from t2',
    );
    expect(script.rows).toEqual([{ x: 7 }]);
  });
});

describe('closing', () => {
  it('ends the thread, releases the directory, and refuses later calls', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-pglite-close-'));
    try {
      const first = await openPgliteDatabase(dir);
      await first.query('select 1');
      await first.close();
      await expect(first.query('select 1')).rejects.toThrow(/exited/);
      // The lock is released: the directory opens again in this process.
      const second = await openPgliteDatabase(dir);
      expect((await second.query<{ n: number }>('select 2 as n')).rows).toEqual([{ n: 2 }]);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
