import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOpenFileLimit } from './open-file-limit';

describe('the open-file limit', () => {
  const folders: string[] = [];
  afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));
  const limitsFile = async (text: string) => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-limits-'));
    folders.push(folder);
    const file = path.join(folder, 'limits');
    await writeFile(file, text);
    return file;
  };

  it('is the soft limit of /proc/self/limits', async () => {
    const file = await limitsFile(
      'Limit                     Soft Limit           Hard Limit           Units     \nMax processes             63704                63704                processes \nMax open files            4096                 524288               files     \n',
    );
    expect(readOpenFileLimit(file)).toBe(4096);
  });

  it('is unknown where the file is missing or says unlimited', async () => {
    expect(readOpenFileLimit(path.join(os.tmpdir(), 'no-such-limits-file'))).toBeUndefined();
    const file = await limitsFile(
      'Max open files            unlimited            unlimited            files     \n',
    );
    expect(readOpenFileLimit(file)).toBeUndefined();
  });

  it('reads this process’s own limit on Linux', () => {
    if (process.platform !== 'linux') return;
    expect(readOpenFileLimit()).toBeGreaterThan(0);
  });
});
