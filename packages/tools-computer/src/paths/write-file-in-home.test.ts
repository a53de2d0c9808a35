import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentHome, resolveAgentHome } from './agent-home';
import { writeFileInHome } from './write-file-in-home';

let base: string;
let home: AgentHome;
const inHome = (...parts: string[]) => path.join(base, 'home', ...parts);
const victim = () => path.join(base, 'outside', 'victim.txt');

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'switchyard-write-'));
  mkdirSync(inHome('dir'), { recursive: true });
  mkdirSync(path.join(base, 'outside'));
  writeFileSync(victim(), 'untouched');
  home = resolveAgentHome(inHome());
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('atomic writes', () => {
  it('writes text given in pieces, and long text in 1 MiB pieces without splitting a character', async () => {
    const long = `${'é'.repeat((1 << 20) - 1)}😀${'x'.repeat(1 << 20)}`;
    const result = await writeFileInHome(home, 'pieces.txt', ['a', long, 'z']);
    expect(readFileSync(inHome('pieces.txt'), 'utf8')).toBe(`a${long}z`);
    expect(result.bytes).toBe(Buffer.byteLength(`a${long}z`));
  });

  it('creates parents and leaves no temp file behind', async () => {
    const result = await writeFileInHome(home, 'a/b/c.txt', 'hello');
    expect(result).toMatchObject({ relative: 'a/b/c.txt', created: true, bytes: 5 });
    expect(readFileSync(inHome('a/b/c.txt'), 'utf8')).toBe('hello');
    expect(readdirSync(inHome('a/b'))).toEqual(['c.txt']);
  });

  it('replaces the file by rename: a reader holding the old file still sees the old content', async () => {
    writeFileSync(inHome('dir/f.txt'), 'old');
    const before = statSync(inHome('dir/f.txt')).ino;
    await writeFileInHome(home, 'dir/f.txt', 'new', {
      beforeRename: () => {
        // Until the rename, the target is untouched.
        expect(readFileSync(inHome('dir/f.txt'), 'utf8')).toBe('old');
      },
    });
    expect(readFileSync(inHome('dir/f.txt'), 'utf8')).toBe('new');
    expect(statSync(inHome('dir/f.txt')).ino).not.toBe(before);
  });

  it('keeps the mode of an existing file', async () => {
    writeFileSync(inHome('run.sh'), 'echo old', { mode: 0o755 });
    await writeFileInHome(home, 'run.sh', 'echo new');
    expect(statSync(inHome('run.sh')).mode & 0o777).toBe(0o755);
  });
});

describe('symlinks and races', () => {
  it('refuses to write through a symlink that points outside', async () => {
    symlinkSync(victim(), inHome('link.txt'));
    await expect(writeFileInHome(home, 'link.txt', 'x')).rejects.toThrow(
      /resolves through a symlink to .*, outside the agent home/,
    );
    expect(readFileSync(victim(), 'utf8')).toBe('untouched');
  });

  it('writes through a symlink that stays inside, keeping the link', async () => {
    writeFileSync(inHome('dir/real.txt'), 'old');
    symlinkSync(inHome('dir/real.txt'), inHome('alias.txt'));
    const result = await writeFileInHome(home, 'alias.txt', 'new');
    expect(result.relative).toBe('dir/real.txt');
    expect(lstatSync(inHome('alias.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(inHome('dir/real.txt'), 'utf8')).toBe('new');
  });

  it('refuses a symlinked parent that leads outside', async () => {
    symlinkSync(path.join(base, 'outside'), inHome('out'));
    await expect(writeFileInHome(home, 'out/victim.txt', 'x')).rejects.toThrow(/outside the agent home/);
    expect(readFileSync(victim(), 'utf8')).toBe('untouched');
  });

  it('does not follow a symlink swapped in at the target between check and write', async () => {
    writeFileSync(inHome('dir/f.txt'), 'old');
    await writeFileInHome(home, 'dir/f.txt', 'new', {
      beforeRename: () => {
        unlinkSync(inHome('dir/f.txt'));
        symlinkSync(victim(), inHome('dir/f.txt'));
      },
    });
    expect(readFileSync(victim(), 'utf8')).toBe('untouched');
    expect(lstatSync(inHome('dir/f.txt')).isSymbolicLink()).toBe(false);
    expect(readFileSync(inHome('dir/f.txt'), 'utf8')).toBe('new');
  });

  it('does not follow a parent directory swapped for a symlink between check and write', async () => {
    await writeFileInHome(home, 'dir/victim.txt', 'new', {
      beforeRename: () => {
        renameSync(inHome('dir'), inHome('dir-moved'));
        symlinkSync(path.join(base, 'outside'), inHome('dir'));
      },
    });
    expect(readFileSync(victim(), 'utf8')).toBe('untouched');
    expect(readFileSync(inHome('dir-moved/victim.txt'), 'utf8')).toBe('new');
  });
});
