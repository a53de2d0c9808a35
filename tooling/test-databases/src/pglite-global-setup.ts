import { ensurePgliteTemplate } from './pglite-template';

/**
 * Builds the PGlite template (`ensurePgliteTemplate`) and nothing else: a vitest `globalSetup` for a
 * suite whose databases are all embedded PGlite (`createPgliteDataDir`, `createPgliteDatabase`), so
 * that no test or hook pays for initdb and no PostgreSQL server is started for it (the console's
 * browser tests).
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@switchyard/test-databases/pglite-global-setup'] } });
 */
export default async function setup(): Promise<void> {
  await ensurePgliteTemplate();
}
