import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findBase, missingChangesets, packagesOfChangeset } from '../check-changesets.mjs';

const script = fileURLToPath(new URL('../check-changesets.mjs', import.meta.url));
let root: string;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

function commit(message: string): string {
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', message);
  return git('rev-parse', 'HEAD');
}

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'switchyard-changesets-'));
  git('init', '-q', '-b', 'main');
  write('packages/core/package.json', JSON.stringify({ name: '@switchyard/core' }));
  write('packages/core/src/index.ts', 'export const a = 1;\n');
  write('packages/secret/package.json', JSON.stringify({ name: '@switchyard/secret', private: true }));
  write('packages/secret/src/index.ts', 'export const b = 1;\n');
  write('.changeset/README.md', '# Changesets\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('changeset check', () => {
  it('names a library package whose src changed without a changeset, and passes once one names it', () => {
    const base = commit('start');
    write('packages/core/src/index.ts', 'export const a = 2;\n');
    commit('change core');
    expect(missingChangesets(root, base)).toEqual([
      { name: '@switchyard/core', file: 'packages/core/src/index.ts' },
    ]);
    const run = spawnSync(process.execPath, [script, base], { cwd: root, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('@switchyard/core changed (packages/core/src/index.ts)');

    write('.changeset/core-a.md', '---\n"@switchyard/core": patch\n---\n\na is 2.\n');
    commit('changeset');
    expect(missingChangesets(root, base)).toEqual([]);
    expect(spawnSync(process.execPath, [script, base], { cwd: root }).status).toBe(0);
  });

  it('leaves tests, fixtures, private packages and other packages’ changesets out of it', () => {
    const base = commit('start');
    write('packages/core/src/index.test.ts', 'test\n');
    write('packages/core/src/__fixtures__/server.mjs', 'fixture\n');
    write('packages/secret/src/index.ts', 'export const b = 2;\n');
    commit('tests and a private package');
    expect(missingChangesets(root, base)).toEqual([]);
    write('packages/core/src/index.ts', 'export const a = 3;\n');
    write('.changeset/other.md', '---\n"@switchyard/tools-web": minor\n---\n\nNot core.\n');
    commit('core with the wrong changeset');
    expect(missingChangesets(root, base).map((entry) => entry.name)).toEqual(['@switchyard/core']);
  });

  it('compares with the merge base of origin/main, and has no base on main itself', () => {
    commit('start');
    expect(findBase(root, '')).toBeUndefined();
    git('update-ref', 'refs/remotes/origin/main', 'HEAD');
    expect(findBase(root, '')).toBeUndefined();
    const mainHead = git('rev-parse', 'HEAD');
    git('checkout', '-q', '-b', 'feature');
    write('packages/core/src/index.ts', 'export const a = 4;\n');
    commit('feature work');
    expect(findBase(root, '')).toBe(mainHead);
    expect(() => findBase(root, 'no-such-ref')).toThrow(/not a commit/);
  });

  it('reads the packages of a changeset’s front matter, quoted or not', () => {
    expect(
      packagesOfChangeset('---\n"@switchyard/core": minor\n\'@switchyard/testkit\': patch\n---\nText'),
    ).toEqual(['@switchyard/core', '@switchyard/testkit']);
    expect(packagesOfChangeset('no front matter')).toEqual([]);
  });
});
