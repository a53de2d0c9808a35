import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDirectory } from './read-directory';

describe('readDirectory', () => {
  let folder: string;
  const names = Array.from(
    { length: 3_000 },
    (_, index) => `f${String((index * 7919) % 3_000).padStart(4, '0')}`,
  );

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'read-directory-'));
    await Promise.all(names.map((name) => writeFile(path.join(folder, name), '')));
  });

  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('keeps the least names by name, in name order, however many the folder holds', async () => {
    const sorted = [...names].sort();
    for (const keep of [1, 100, 1_499, 1_500, 2_999]) {
      const read = await readDirectory(folder, keep, { byName: true });
      expect(read.entries.map((entry) => entry.name)).toEqual(sorted.slice(0, keep));
      expect(read.more).toBe(true);
    }
    const all = await readDirectory(folder, 3_000, { byName: true });
    expect(all.entries.map((entry) => entry.name)).toEqual(sorted);
    expect(all.more).toBe(false);
  });

  it('keeps the first entries the file system gives without byName, and says there are more', async () => {
    const read = await readDirectory(folder, 250);
    expect(read.entries).toHaveLength(250);
    expect(new Set(read.entries.map((entry) => entry.name)).size).toBe(250);
    expect(read.more).toBe(true);
    expect((await readDirectory(folder, Number.POSITIVE_INFINITY)).entries).toHaveLength(3_000);
  });

  it('rejects with the file system error for a folder it cannot read', async () => {
    await expect(readDirectory(path.join(folder, 'missing'), 10)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readDirectory(path.join(folder, 'f0000'), 10)).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
