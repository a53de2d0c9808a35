import pg from 'pg';
import type { Database, QueryResult, SqlExecutor } from './database';

function wrap(target: pg.Pool | pg.PoolClient): SqlExecutor {
  const query = async <TRow>(
    text: string,
    values?: readonly unknown[],
    options?: { name?: string },
  ): Promise<QueryResult<TRow>> => {
    const parameters = values === undefined ? undefined : [...values];
    const result =
      options?.name === undefined
        ? await target.query(text, parameters)
        : await target.query({
            name: options.name,
            text,
            ...(parameters === undefined ? {} : { values: parameters }),
          });
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

/** How `openPostgresDatabase` sizes its pool. */
export interface PostgresPoolOptions {
  /** Largest pool. Default 10. */
  maxConnections?: number;
  /**
   * Opens all `maxConnections` connections at once and keeps them open (a fixed-size pool, as a
   * long-running daemon wants): a burst of work never waits for new connections, and a server that
   * cannot give them fails here. Default false: connections open on demand and close after 10 s idle.
   */
  fixed?: boolean;
}

/**
 * Connects a pool to a PostgreSQL server.
 *
 * Contract: rejects when the server is unreachable (or, with `fixed`, cannot give every
 * connection); `transaction` holds one pooled connection for its whole callback.
 */
export async function openPostgresDatabase(
  url: string,
  options: PostgresPoolOptions = {},
): Promise<Database> {
  const max = options.maxConnections ?? 10;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A fixed pool: no idle connection is closed while the pool holds at most `max` of them.
    ...(options.fixed === true ? { min: max } : {}),
    application_name: 'switchyard',
  });
  // An idle client's error (a server restart) must not crash the process; the next query reports it.
  pool.on('error', () => {});
  try {
    const opened = await Promise.allSettled(
      Array.from({ length: options.fixed === true ? max : 1 }, () => pool.connect()),
    );
    // Every connection given back before a refusal is reported: pool.end() waits for checked-out ones.
    for (const result of opened) if (result.status === 'fulfilled') result.value.release();
    const refused = opened.find((result) => result.status === 'rejected');
    if (refused !== undefined) throw refused.reason;
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
