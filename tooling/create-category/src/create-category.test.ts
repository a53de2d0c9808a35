import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory } from '../create-category.mjs';

const repositoryRoot = path.resolve(import.meta.dirname, '..', '..', '..');

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
}

/** A copy of the workspace's tracked and untracked source files (no node_modules, no build output). */
function copyWorkspace(target: string): void {
  const listed = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], repositoryRoot);
  for (const file of listed.split('\0')) {
    if (file === '' || !existsSync(path.join(repositoryRoot, file))) continue;
    // A category needs the library packages only: the worker app and the peer benchmarks bring
    // dependencies the install of the copy would have to resolve again.
    if (file.startsWith('bench/') || file.startsWith('apps/')) continue;
    mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    cpSync(path.join(repositoryRoot, file), path.join(target, file));
  }
  // The packages a category builds on are already built here (turbo builds this package's
  // dependencies first): reuse their output instead of rebuilding them in the copy.
  for (const dependency of ['core', 'testkit']) {
    cpSync(
      path.join(repositoryRoot, 'packages', dependency, 'dist'),
      path.join(target, 'packages', dependency, 'dist'),
      {
        recursive: true,
      },
    );
  }
}

describe('create-category scaffold', () => {
  let workspace: string;

  beforeAll(() => {
    workspace = mkdtempSync(path.join(tmpdir(), 'switchyard-scaffold-'));
    copyWorkspace(workspace);
    run('git', ['init', '-q'], workspace);
  }, 120_000);

  // The copy holds an installed workspace (tens of thousands of files): removing it can take
  // longer than the default 10 s hook timeout on a busy machine.
  afterAll(() => {
    rmSync(workspace, { recursive: true, force: true });
  }, 120_000);

  it('refuses a bad name and an existing package', () => {
    expect(() => createCategory(workspace, 'Bad Name')).toThrow(/lower-case words/);
    expect(() => createCategory(workspace, 'web')).toThrow(/packages\/tools-web already exists/);
  });

  it('generates a package that builds, type-checks, lints and passes its tests with no edits', () => {
    const directory = createCategory(workspace, 'sample-crm');
    expect(path.relative(workspace, directory)).toBe(path.join('packages', 'tools-sample-crm'));
    expect(readFileSync(path.join(workspace, '.changeset', 'tools-sample-crm-initial.md'), 'utf8')).toContain(
      '"@switchyard/tools-sample-crm": minor',
    );
    run('pnpm', ['install', '--prefer-offline', '--no-frozen-lockfile', '--reporter=silent'], workspace);
    // Only the new package builds: its dependencies' output was copied in (`copyWorkspace`).
    for (const script of ['build', 'type-check', 'lint', 'check-package']) {
      run('pnpm', ['--filter', '@switchyard/tools-sample-crm', 'run', script], workspace);
    }
    const output = run(
      'pnpm',
      ['--filter', '@switchyard/tools-sample-crm', 'run', 'test', '--reporter=verbose'],
      workspace,
    );
    expect(output).toMatch(/sample-crm: tool category conformance/);
    expect(output).toMatch(/public API of @switchyard\/tools-sample-crm/);
    expect(output).toMatch(/Tests\s+\d+ passed/);
    expect(output).not.toMatch(/failed/);
  }, 420_000);
});
