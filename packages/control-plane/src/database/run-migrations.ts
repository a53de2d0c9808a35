import type { Database } from './database';
import { MIGRATIONS, type Migration } from './migrations';

// Any constant will do, as long as every Switchyard process uses the same one.
const MIGRATION_LOCK_KEY = 0x53_77_79_64;

const BOOTSTRAP = `
CREATE SCHEMA IF NOT EXISTS switchyard;
CREATE TABLE IF NOT EXISTS switchyard.migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`;

/**
 * Applies every migration not applied yet, each in its own transaction, and returns the versions
 * it applied (empty when the schema is current).
 *
 * Contract: safe when several processes start at once: each transaction first takes a
 * transaction-scoped advisory lock, so one process applies a migration and the others then see it
 * recorded. A failing migration rolls back whole and rejects.
 */
export async function runMigrations(
  database: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const applied: number[] = [];
  for (const migration of migrations) {
    await database.transaction(async (transaction) => {
      await transaction.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await transaction.exec(BOOTSTRAP);
      const { rows } = await transaction.query('SELECT 1 FROM switchyard.migrations WHERE version = $1', [
        migration.version,
      ]);
      if (rows.length > 0) return;
      await transaction.exec(migration.sql);
      await transaction.query('INSERT INTO switchyard.migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    });
  }
  return applied;
}
