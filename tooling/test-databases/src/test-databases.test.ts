import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  createPgliteDatabase,
  createPgliteDataDir,
  createPostgresDatabase,
  postgresTitle,
  postgresUrl,
} from './index';
import { pgliteVersion } from './pglite-template';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('PGlite data directories', () => {
  it('are independent copies of an initialised template that PGlite opens', async () => {
    const first = await createPgliteDatabase();
    const second = await createPgliteDataDir();
    try {
      expect(first.options).toHaveProperty('dataDir');
      const firstDir = 'dataDir' in first.options ? first.options.dataDir : '';
      expect(firstDir).not.toBe(second);
      const a = await PGlite.create(firstDir);
      await a.exec('CREATE TABLE only_in_first (id int)');
      await a.close();
      const b = await PGlite.create(second);
      const tables = await b.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_name = 'only_in_first'",
      );
      await b.close();
      expect(tables.rows).toEqual([]);
    } finally {
      await first.dispose();
    }
    const firstDir = 'dataDir' in first.options ? first.options.dataDir : '';
    expect(existsSync(firstDir)).toBe(false);
  });

  it('are built by the PGlite version every workspace package pins (a template opened by another fails)', async () => {
    const pins: Record<string, string> = {};
    for (const group of ['packages', 'apps', 'tooling']) {
      for (const name of await readdir(path.join(repoRoot, group))) {
        const manifest = path.join(repoRoot, group, name, 'package.json');
        if (!existsSync(manifest)) continue;
        const { dependencies = {}, devDependencies = {} } = JSON.parse(await readFile(manifest, 'utf8')) as {
          dependencies?: Record<string, string>;
          devDependencies?: Record<string, string>;
        };
        const pin = dependencies['@electric-sql/pglite'] ?? devDependencies['@electric-sql/pglite'];
        if (pin) pins[`${group}/${name}`] = pin;
      }
    }
    expect(pins['packages/control-plane']).toBeDefined();
    for (const pin of Object.values(pins)) expect(pin).toBe(pgliteVersion());
  });
});

describe(postgresTitle, () => {
  it.skipIf(!postgresUrl)('creates a fresh database on the shared server and drops it', async () => {
    const adminUrl = postgresUrl ?? '';
    const database = await createPostgresDatabase(adminUrl);
    const url = 'databaseUrl' in database.options ? database.options.databaseUrl : '';
    const name = new URL(url).pathname.slice(1);
    expect(name).toMatch(/^switchyard_test_[0-9a-f]{12}$/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const current = await client.query<{ name: string }>('SELECT current_database() AS name');
    await client.end();
    expect(current.rows[0]?.name).toBe(name);

    await database.dispose();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    const left = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    await admin.end();
    expect(left.rowCount).toBe(0);
  });

  it('is titled by whether a server is available', () => {
    expect(postgresTitle).toBe(
      postgresUrl ? 'PostgreSQL server' : 'PostgreSQL server (skipped: no PostgreSQL server binaries)',
    );
  });
});
