import path from 'node:path';
import { ControlPlaneConfigError } from './errors/control-plane-config-error';

/** Where durable state lives: a PostgreSQL server, or an embedded PGlite directory. */
export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string };

/**
 * Chooses the database: `databaseUrl`, else `DATABASE_URL`, selects a PostgreSQL server; otherwise
 * an embedded PGlite database in `dataDir` (default `.switchyard/db` under the working directory).
 *
 * Contract: throws `ControlPlaneConfigError` naming the field when a URL is not a `postgres://` or `postgresql://` URL.
 */
export function resolveDatabaseTarget(
  options: { databaseUrl?: string; dataDir?: string },
  environment: NodeJS.ProcessEnv = process.env,
): DatabaseTarget {
  const field = options.databaseUrl !== undefined ? 'databaseUrl' : 'DATABASE_URL';
  const url = options.databaseUrl ?? (environment.DATABASE_URL || undefined);
  if (url !== undefined) {
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw new ControlPlaneConfigError({ field, message: 'not a valid URL' });
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
      throw new ControlPlaneConfigError({
        field,
        message: `expected a postgres:// or postgresql:// URL, got ${protocol}//`,
      });
    }
    return { kind: 'postgres', url };
  }
  return { kind: 'pglite', dataDir: path.resolve(options.dataDir ?? path.join('.switchyard', 'db')) };
}
