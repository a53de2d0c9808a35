import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CategoryNameError, categoryName } from '../create-category.mjs';

const repositoryRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const rootPackage = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
  packageManager: string;
  scripts: Record<string, string>;
};

/**
 * A workspace holding what the command reads: the root `create-category` script exactly as the
 * repository defines it, the script itself and core's package.json. The root package declares no
 * dependencies, so pnpm has nothing to install before running the script.
 */
function makeWorkspace(): string {
  const workspace = mkdtempSync(path.join(tmpdir(), 'switchyard-create-category-'));
  writeFileSync(
    path.join(workspace, 'package.json'),
    JSON.stringify({
      name: 'scaffold-cli-test',
      private: true,
      packageManager: rootPackage.packageManager,
      scripts: { 'create-category': rootPackage.scripts['create-category'] },
    }),
  );
  mkdirSync(path.join(workspace, 'tooling', 'create-category'), { recursive: true });
  cpSync(
    path.join(repositoryRoot, 'tooling', 'create-category', 'create-category.mjs'),
    path.join(workspace, 'tooling', 'create-category', 'create-category.mjs'),
  );
  mkdirSync(path.join(workspace, 'packages', 'core'), { recursive: true });
  cpSync(
    path.join(repositoryRoot, 'packages', 'core', 'package.json'),
    path.join(workspace, 'packages', 'core', 'package.json'),
  );
  return workspace;
}

/** `pnpm create-category ...args` in the workspace, as a user types it. */
function createCategory(workspace: string, ...args: string[]) {
  const result = spawnSync('pnpm', ['create-category', ...args], {
    cwd: workspace,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function packagesIn(workspace: string): string[] {
  return readdirSync(path.join(workspace, 'packages')).sort();
}

// Each case starts pnpm up to three times, a second or two each on a busy machine.
describe('pnpm create-category', { timeout: 60_000 }, () => {
  let workspace: string;

  beforeEach(() => {
    workspace = makeWorkspace();
  });

  afterEach(() => {
    rmSync(workspace, { recursive: true, force: true });
  });

  it.each([
    ['crm', 'tools-crm'],
    ['tools-crm', 'tools-crm'],
    ['tools-crm-sync', 'tools-crm-sync'],
  ])('writes packages/%s -> packages/%s, never a doubled prefix', (name, directory) => {
    const result = createCategory(workspace, name);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`Created packages/${directory}.`);
    expect(result.stdout).toContain(`--filter=@switchyard/${directory}\n`);
    expect(packagesIn(workspace)).toEqual(['core', directory]);
    const written = JSON.parse(
      readFileSync(path.join(workspace, 'packages', directory, 'package.json'), 'utf8'),
    );
    expect(written.name).toBe(`@switchyard/${directory}`);
    expect(existsSync(path.join(workspace, '.changeset', `${directory}-initial.md`))).toBe(true);
  });

  it('prints the usage and exits with 2 when the name is missing', () => {
    const result = createCategory(workspace);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('create-category: a category name is required');
    expect(result.stderr).toContain('Usage: pnpm create-category <name>');
    expect(result.stderr).not.toContain('undefined');
    expect(packagesIn(workspace)).toEqual(['core']);
  });

  it.each([
    ['Bad'],
    ['crm_sync'],
    ['tools-'],
    ['tools-Crm'],
    ['9crm'],
    ['crm--sync'],
  ])('prints the usage and exits with 2 for the bad name %s', (name) => {
    const result = createCategory(workspace, name);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`lower-case words joined by '-'`);
    expect(result.stderr).toContain(JSON.stringify(name));
    expect(result.stderr).toContain('Usage: pnpm create-category <name>');
    expect(packagesIn(workspace)).toEqual(['core']);
  });

  it('exits with 2 for more than one name or an unknown option', () => {
    const twoNames = createCategory(workspace, 'crm', 'sales');
    expect(twoNames.status).toBe(2);
    expect(twoNames.stderr).toContain('expected one name, got 2: crm sales');
    const unknown = createCategory(workspace, '--force', 'crm');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown option --force');
    expect(packagesIn(workspace)).toEqual(['core']);
  });

  it('prints the usage on --help and -h, writes nothing and exits with 0', () => {
    for (const flag of ['--help', '-h']) {
      const result = createCategory(workspace, flag);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('Usage: pnpm create-category <name>');
      expect(result.stdout).toContain("'crm' and 'tools-crm' both write packages/tools-crm");
    }
    expect(packagesIn(workspace)).toEqual(['core']);
  });

  it('refuses to overwrite a package that exists, in either spelling, with exit code 1', () => {
    expect(createCategory(workspace, 'crm').status).toBe(0);
    for (const name of ['crm', 'tools-crm']) {
      const again = createCategory(workspace, name);
      expect(again.status).toBe(1);
      expect(again.stderr).toContain('packages/tools-crm already exists');
      expect(again.stderr).not.toContain('Usage:');
    }
  });
});

describe('categoryName', () => {
  it('drops the optional tools- prefix once', () => {
    expect(categoryName('crm')).toBe('crm');
    expect(categoryName('tools-crm')).toBe('crm');
    expect(categoryName('tools-tools-crm')).toBe('tools-crm');
  });

  it('throws a CategoryNameError for a missing or bad name', () => {
    for (const name of [undefined, '', 'tools-', 'Bad Name', 42]) {
      expect(() => categoryName(name)).toThrow(CategoryNameError);
    }
  });
});
