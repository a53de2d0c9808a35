import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ComputerToolsConfigError } from '../errors/computer-tools-config-error';
import {
  type AgentHome,
  ensureDirectoryInHome,
  openFileForRead,
  readFolderInHome,
  resolveAgentHome,
  resolveExistingInHome,
  resolveInHome,
} from './agent-home';
import { HomePathError } from './home-path-error';

let base: string;
let home: AgentHome;

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'switchyard-home-'));
  mkdirSync(path.join(base, 'home', 'src'), { recursive: true });
  mkdirSync(path.join(base, 'outside'));
  writeFileSync(path.join(base, 'outside', 'secret.txt'), 'outside');
  writeFileSync(path.join(base, 'home', 'src', 'a.ts'), 'inside');
  home = resolveAgentHome(path.join(base, 'home'));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('home resolution', () => {
  it('throws a configuration error naming home for a missing directory', () => {
    expect(() => resolveAgentHome(path.join(base, 'missing'))).toThrow(/home: .*cannot be resolved/);
    const error = (() => {
      try {
        resolveAgentHome('');
      } catch (caught) {
        return caught;
      }
    })();
    expect(ComputerToolsConfigError.isInstance(error)).toBe(true);
  });

  it('accepts a home given through a symlink and confines to its real path', () => {
    symlinkSync(path.join(base, 'home'), path.join(base, 'home-link'));
    const linked = resolveAgentHome(path.join(base, 'home-link'));
    expect(linked.root).toBe(home.root);
    expect(resolveInHome(linked, path.join(base, 'home-link', 'src', 'a.ts')).relative).toBe('src/a.ts');
  });
});

describe('escape attempts', () => {
  it('refuses .. that leaves the home', () => {
    expect(() => resolveInHome(home, '../outside/secret.txt')).toThrow(HomePathError);
    expect(() => resolveInHome(home, 'src/../../outside')).toThrow(/outside the agent home/);
  });

  it('allows .. that stays inside', () => {
    expect(resolveInHome(home, 'src/../src/a.ts').relative).toBe('src/a.ts');
  });

  it('refuses absolute paths outside', () => {
    expect(() => resolveInHome(home, '/etc/passwd')).toThrow(/outside the agent home/);
  });

  it('refuses a symlink to /etc', async () => {
    symlinkSync('/etc', path.join(base, 'home', 'etc'));
    await expect(resolveExistingInHome(home, 'etc')).rejects.toThrow(/symlink to \/etc, outside/);
    await expect(openFileForRead(home, 'etc/hostname')).rejects.toThrow(/outside the agent home/);
  });

  it('refuses a dangling symlink pointing outside with the outside message', async () => {
    symlinkSync(path.join(base, 'outside', 'nope'), path.join(base, 'home', 'dangling'));
    await expect(openFileForRead(home, 'dangling')).rejects.toThrow(/outside the agent home/);
  });

  it('refuses to create directories through a symlinked parent', async () => {
    symlinkSync(path.join(base, 'outside'), path.join(base, 'home', 'out'));
    await expect(ensureDirectoryInHome(home, 'out/new')).rejects.toThrow(/outside the agent home/);
  });

  it('follows a symlink that stays inside', async () => {
    symlinkSync(path.join(base, 'home', 'src'), path.join(base, 'home', 'code'));
    const opened = await openFileForRead(home, 'code/a.ts');
    await opened.handle.close();
    expect(opened.relative).toBe('src/a.ts');
  });

  it('names a missing file and refuses directories for reading', async () => {
    await expect(openFileForRead(home, 'nope.txt')).rejects.toThrow('nope.txt does not exist.');
    await expect(openFileForRead(home, 'src')).rejects.toThrow(/is a directory/);
  });
});

describe('readFolderInHome', () => {
  it.runIf(process.platform === 'linux')(
    'lists a folder in one open, under its real path, through an inside symlink',
    async () => {
      symlinkSync(path.join(base, 'home', 'src'), path.join(base, 'home', 'code'));
      const read = await readFolderInHome(home, 'code');
      expect(read?.real).toBe(path.join(home.root, 'src'));
      expect(read?.entries.map((entry) => entry.name)).toEqual(['a.ts']);
      expect((await readFolderInHome(home, '.'))?.entries.map((entry) => entry.name).sort()).toEqual([
        'code',
        'src',
      ]);
    },
  );

  it('leaves every refusal to the step-by-step path', async () => {
    symlinkSync(path.join(base, 'outside'), path.join(base, 'home', 'out'));
    expect(await readFolderInHome(home, 'out')).toBeUndefined();
    expect(await readFolderInHome(home, 'src/a.ts')).toBeUndefined();
    expect(await readFolderInHome(home, 'missing')).toBeUndefined();
    await expect(readFolderInHome(home, '../outside')).rejects.toThrow(HomePathError);
  });
});
