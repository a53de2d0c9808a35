import pg from 'pg';
import type { Database, QueryResult, SqlExecutor } from './database';

function wrap(target: pg.Pool | pg.PoolClient): SqlExecutor {
  const query = async <TRow>(text: string, values?: readonly unknown[]): Promise<QueryResult<TRow>> => {
    const result = await target.query(text, values === undefined ? undefined : [...values]);
    return { rows: result.rows as TRow[] };
  };
  return {
    query,
    exec: async (text) => {
      // Without values pg uses the simple query protocol, which accepts several statements.
      await target.query(text);
    },
    executeSql: (text, values) => query(text, values),
  };
}

/**
 * Connects a pool to a PostgreSQL server.
 *
 * Contract: rejects when the server is unreachable; `transaction` holds one pooled connection for
 * its whole callback.
 */
export async function openPostgresDatabase(
  url: string,
  options: { maxConnections?: number } = {},
): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    application_name: 'switchyard',
  });
  // An idle client's error (a server restart) must not crash the process; the next query reports it.
  pool.on('error', () => {});
  try {
    const probe = await pool.connect();
    probe.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return {
    kind: 'postgres',
    ...wrap(pool),
    transaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
