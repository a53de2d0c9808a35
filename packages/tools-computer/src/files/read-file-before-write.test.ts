import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileBeforeWrite } from './read-file-before-write';

describe('the file a write_file replaces, read for review', () => {
  let folder: string;
  let home: string;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-file-before-'));
    home = path.join(folder, 'home');
    await mkdir(path.join(home, 'notes'), { recursive: true });
    await writeFile(path.join(folder, 'secret.txt'), 'outside the home\n');
    await writeFile(path.join(home, 'notes', 'plan.md'), 'step one\nstep two ✓\n');
    await writeFile(path.join(home, 'long.txt'), `${'é'.repeat(40)}tail`);
    await writeFile(path.join(home, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    await writeFile(path.join(home, 'nul.txt'), 'text\u0000more');
    await writeFile(path.join(home, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await symlink(path.join(folder, 'secret.txt'), path.join(home, 'escape.txt'));
  });

  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('gives a text file whole, and the start of a larger one cut before a character', async () => {
    const bytes = Buffer.byteLength('step one\nstep two ✓\n');
    expect(await readFileBeforeWrite(home, 'notes/plan.md', { maxBytes: 1024 })).toEqual({
      path: 'notes/plan.md',
      state: 'text',
      text: 'step one\nstep two ✓\n',
      bytes,
    });
    // 40 two-byte characters and 4 bytes: 25 bytes kept would split the 13th, so 24 are.
    expect(await readFileBeforeWrite(home, 'long.txt', { maxBytes: 25 })).toEqual({
      path: 'long.txt',
      state: 'cut',
      text: 'é'.repeat(12),
      bytes: 84,
    });
  });

  it('says binary, missing or unreadable instead of reading what is not text inside the home', async () => {
    expect(await readFileBeforeWrite(home, 'image.png', { maxBytes: 1024 })).toEqual({
      path: 'image.png',
      state: 'binary',
      bytes: 7,
    });
    expect((await readFileBeforeWrite(home, 'nul.txt', { maxBytes: 1024 })).state).toBe('binary');
    expect((await readFileBeforeWrite(home, 'latin1.txt', { maxBytes: 1024 })).state).toBe('binary');
    expect(await readFileBeforeWrite(home, 'new/file.txt', { maxBytes: 1024 })).toEqual({
      path: 'new/file.txt',
      state: 'missing',
    });
    for (const outside of ['../secret.txt', 'escape.txt', path.join(folder, 'secret.txt'), 'notes']) {
      const read = await readFileBeforeWrite(home, outside, { maxBytes: 1024 });
      expect(read.state, outside).toBe('unreadable');
      expect(JSON.stringify(read)).not.toContain('outside the home\\n');
    }
    expect((await readFileBeforeWrite(path.join(folder, 'no-home'), 'a.txt', { maxBytes: 1024 })).state).toBe(
      'unreadable',
    );
  });
});
