/** One row set returned by a query. */
export interface QueryResult<TRow> {
  /** The rows, with PostgreSQL types mapped by the driver (timestamptz becomes `Date`). */
  rows: TRow[];
}

/**
 * Runs SQL: the pool or PGlite instance, or one transaction's connection. `executeSql` is the shape
 * pg-boss 10 takes as its `db` option, so any executor (a transaction's included) can carry pg-boss
 * calls.
 */
export interface SqlExecutor {
  /**
   * Runs one statement with `$1`-style parameters. With `options.name`, PostgreSQL prepares it once per
   * connection under that name and then only binds and runs it (no parse or plan each time): for a hot
   * statement of fixed text, one name per text. PGlite ignores the name.
   */
  query<TRow = Record<string, unknown>>(
    text: string,
    values?: readonly unknown[],
    options?: { name?: string },
  ): Promise<QueryResult<TRow>>;
  /** Runs a script of several statements without parameters. */
  exec(text: string): Promise<void>;
  /** pg-boss's entry point: a script without values, or one statement with values. */
  executeSql(text: string, values?: unknown[]): Promise<QueryResult<unknown>>;
}

/** The database the control plane runs on: embedded PGlite or a PostgreSQL server. */
export interface Database extends SqlExecutor {
  /** Which engine this is. */
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (transaction: SqlExecutor) => Promise<T>): Promise<T>;
  /** Closes the connection pool or the embedded database. */
  close(): Promise<void>;
}
