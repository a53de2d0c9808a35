import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE } from './data-dir-lock';
import { openPgliteDatabase } from './open-pglite-database';
import { findPgliteTemplate, type PgliteTemplate, seedPgliteDataDir } from './pglite-template';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-seed-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function builtTemplate(): Promise<PgliteTemplate> {
  const template = await findPgliteTemplate();
  if (template === undefined) {
    throw new Error('no dist/pglite-template.json of the installed PGlite: build the package first');
  }
  return template;
}

describe('PGlite data directory template', () => {
  it('is built for the installed PGlite, holding a whole data directory', async () => {
    const template = await builtTemplate();
    const installed = JSON.parse(
      await readFile(
        new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url),
        'utf8',
      ),
    ) as { version: string };
    expect(template.pgliteVersion).toBe(installed.version);
    const { list } = await import('tar');
    const names: string[] = [];
    await list({ file: template.archive, onReadEntry: (entry) => names.push(entry.path) });
    expect(names).toEqual(
      expect.arrayContaining(['PG_VERSION', 'base/', 'global/', 'pg_wal/', 'postgresql.conf']),
    );
  });

  it('seeds a new data directory that PGlite opens, writes and reopens', async () => {
    await writeFile(path.join(dataDir, DATA_DIR_LOCK_FILE), '{}');
    expect(await seedPgliteDataDir(dataDir, await builtTemplate())).toBe(true);
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
    expect(existsSync(path.join(dataDir, '.switchyard-seed'))).toBe(false);
    await rm(path.join(dataDir, DATA_DIR_LOCK_FILE));

    const first = await openPgliteDatabase(dataDir);
    await first.exec('create table kept (value text); insert into kept values ($$seeded$$);');
    await first.close();
    const again = await openPgliteDatabase(dataDir);
    expect((await again.query<{ value: string }>('select value from kept')).rows).toEqual([
      { value: 'seeded' },
    ]);
    const buffers = await again.query<{ shared_buffers: string }>('show shared_buffers');
    expect(buffers.rows).toEqual([{ shared_buffers: '32MB' }]);
    await again.close();
  });

  it('leaves a directory holding a database alone', async () => {
    await writeFile(path.join(dataDir, 'PG_VERSION'), '18\n');
    expect(await seedPgliteDataDir(dataDir, await builtTemplate())).toBe(false);
    expect(await readdir(dataDir)).toEqual(['PG_VERSION']);
  });

  it('does not touch a directory holding files that are not a database', async () => {
    await writeFile(path.join(dataDir, 'notes.txt'), 'mine');
    expect(await seedPgliteDataDir(dataDir, await builtTemplate())).toBe(false);
    expect(await readdir(dataDir)).toEqual(['notes.txt']);
    expect(await readFile(path.join(dataDir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('seeds again over what an interrupted seed left (no PG_VERSION yet)', async () => {
    await mkdir(path.join(dataDir, '.switchyard-seed/base'), { recursive: true });
    await mkdir(path.join(dataDir, 'base/1'), { recursive: true });
    await writeFile(path.join(dataDir, 'base/1/half-written'), 'x');
    await writeFile(path.join(dataDir, 'postgresql.conf'), '# half');
    expect(await seedPgliteDataDir(dataDir, await builtTemplate())).toBe(true);
    expect(existsSync(path.join(dataDir, 'base/1/half-written'))).toBe(false);
    expect(await readFile(path.join(dataDir, 'postgresql.conf'), 'utf8')).not.toBe('# half');
    expect(existsSync(path.join(dataDir, '.switchyard-seed'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
  });

  it('is not used when another PGlite version made it, or its archive is missing', async () => {
    const template = await builtTemplate();
    const dist = path.dirname(template.archive);
    await writeFile(
      path.join(dataDir, 'pglite-template.json'),
      JSON.stringify({ pglite: '0.0.1', archive: template.archive }),
    );
    expect(await findPgliteTemplate(dataDir)).toBeUndefined();
    const current = JSON.parse(await readFile(path.join(dist, 'pglite-template.json'), 'utf8'));
    await writeFile(
      path.join(dataDir, 'pglite-template.json'),
      JSON.stringify({ ...current, archive: 'gone.tgz' }),
    );
    expect(await findPgliteTemplate(dataDir)).toBeUndefined();
    await writeFile(
      path.join(dataDir, 'pglite-template.json'),
      JSON.stringify({ ...current, archive: template.archive }),
    );
    expect(await findPgliteTemplate(dataDir)).toEqual(template);
  });

  it('does nothing without a template', async () => {
    expect(await seedPgliteDataDir(dataDir, undefined)).toBe(false);
    expect(await readdir(dataDir)).toEqual([]);
  });
});
