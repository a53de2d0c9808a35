import type { Database, QueryResult } from './database';

// The database of each open control plane, kept off the public object: raw SQL is for this
// package's tests and for diagnostics through `@switchyard/control-plane/testing`, not an API.
const databases = new WeakMap<object, Database>();

/** Remembers `database` as the one `controlPlane` runs on (called by `openControlPlane`). */
export function rememberControlPlaneDatabase(controlPlane: object, database: Database): void {
  databases.set(controlPlane, database);
}

/**
 * Runs one SQL statement on the database of an open control plane: for tests and diagnostics only.
 * Unstable: not covered by semver; the schema it reads changes with migrations.
 *
 * Contract: throws a `TypeError` for an object `openControlPlane` did not return; rejects as the
 * database does (bad SQL, a closed control plane).
 *
 * @example
 * const { rows } = await queryControlPlane<{ count: number }>(controlPlane,
 *   'SELECT count(*)::int AS count FROM switchyard.schedules');
 */
export function queryControlPlane<TRow = Record<string, unknown>>(
  controlPlane: object,
  text: string,
  values?: readonly unknown[],
): Promise<QueryResult<TRow>> {
  const database = databases.get(controlPlane);
  if (database === undefined) {
    throw new TypeError('queryControlPlane: not a control plane returned by openControlPlane');
  }
  return database.query<TRow>(text, values);
}
