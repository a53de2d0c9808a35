import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import type { Database } from '../database/database';
import { MIGRATIONS } from '../database/migrations';
import { openPgliteDatabase } from '../database/open-pglite-database';
import { openPostgresDatabase } from '../database/open-postgres-database';
import { runMigrations } from '../database/run-migrations';

const PAGE = '00000000-0000-4000-8000-000000000001';
const FORGOTTEN = '00000000-0000-4000-8000-000000000002';

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: migration 11 on a Brain written before it`, () => {
    it('dates each earlier version by its replacement, names its agent, and counts every agent’s usage', async () => {
      const created = await backend.create();
      const database: Database =
        'dataDir' in created.options
          ? await openPgliteDatabase(created.options.dataDir)
          : await openPostgresDatabase(created.options.databaseUrl);
      try {
        await runMigrations(
          database,
          MIGRATIONS.filter((migration) => migration.version < 11),
        );
        // As the Brain stored pages before: page 1 at version 3 (versions 1 and 2 kept), a forgotten
        // page of 3,000 bytes, and another agent's page.
        await database.exec(`
          INSERT INTO switchyard.brain_pages (id, agent_id, title, body, tags, version, search, updated_at, archived_at) VALUES
            ('${PAGE}', 'ada', 'Runbook', 'three', '{}', 3, to_tsvector('three'), '2030-01-03T00:00:00Z', NULL),
            ('${FORGOTTEN}', 'ada', 'Old', repeat('x', 3000), '{}', 1, to_tsvector('x'), '2030-01-01T00:00:00Z', '2030-01-05T00:00:00Z'),
            ('00000000-0000-4000-8000-000000000003', 'bob', 'Mine', 'bob', '{}', 1, to_tsvector('bob'), '2030-01-01T00:00:00Z', NULL);
          INSERT INTO switchyard.brain_page_versions (page_id, version, title, body, tags, written_at) VALUES
            ('${PAGE}', 1, 'Runbook', 'one', '{}', '2030-01-01T00:00:00Z'),
            ('${PAGE}', 2, 'Runbook', 'two', '{}', '2030-01-02T00:00:00Z');
        `);
        expect(
          await runMigrations(
            database,
            MIGRATIONS.filter((migration) => migration.version <= 11),
          ),
        ).toEqual([11]);
        const { rows: versions } = await database.query<{
          version: number;
          agent_id: string;
          replaced_at: Date;
        }>('SELECT version, agent_id, replaced_at FROM switchyard.brain_page_versions ORDER BY version');
        expect(
          versions.map((row) => [row.version, row.agent_id, new Date(row.replaced_at).toISOString()]),
        ).toEqual([
          [1, 'ada', '2030-01-02T00:00:00.000Z'],
          [2, 'ada', '2030-01-03T00:00:00.000Z'],
        ]);
        const { rows: usage } = await database.query<{ agent_id: string; pages: number; bytes: string }>(
          'SELECT agent_id, pages, bytes FROM switchyard.brain_usage ORDER BY agent_id',
        );
        // ada: page 1 and its two versions count 1,024 bytes each, the forgotten page its 3,000.
        expect(usage.map((row) => [row.agent_id, row.pages, Number(row.bytes)])).toEqual([
          ['ada', 1, 3 * 1024 + 3000],
          ['bob', 1, 1024],
        ]);
      } finally {
        await database.close();
        await created.dispose();
      }
    }, 120_000);
  });
}
