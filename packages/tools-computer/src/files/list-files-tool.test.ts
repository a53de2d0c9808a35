import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callTool, toolOnHome, useTempHome } from '../__fixtures__/tool-harness';
import { createListFilesTool } from './list-files-tool';

const temp = useTempHome(() => {
  for (const file of [
    'src/a.ts',
    'src/b.ts',
    'src/lib/c.ts',
    'src/lib/d.md',
    'README.md',
    '.hidden/e.ts',
    'node_modules/x/index.ts',
  ]) {
    temp.write(file, '');
  }
  temp.write('../outside/f.ts', '');
  symlinkSync(temp.outside, path.join(temp.home, 'out'));
});
const tool = toolOnHome(temp, createListFilesTool);

describe('globbing', () => {
  it('matches across folders, relative to the home, without following symlinks or entering node_modules', async () => {
    const listFiles = tool();
    const { text, label } = await callTool(listFiles, { pattern: '**/*.ts' });
    expect(text.split('\n')).toEqual(['src/a.ts', 'src/b.ts', 'src/lib/c.ts']);
    expect(label).toBe('Found 3 files matching **/*.ts');
    expect(listFiles.describeActivity({ pattern: '*.ts', path: 'src' })).toBe('Listing *.ts in src');
  });

  it('lists one folder level with *, folders marked with /', async () => {
    const { text } = await callTool(tool(), { pattern: '*', path: 'src' });
    expect(text.split('\n')).toEqual(['src/a.ts', 'src/b.ts', 'src/lib/']);
  });

  it('enters node_modules and dot folders when the pattern names them', async () => {
    expect((await callTool(tool(), { pattern: 'node_modules/**/*.ts' })).text).toBe(
      'node_modules/x/index.ts',
    );
    expect((await callTool(tool(), { pattern: '.hidden/*' })).text).toBe('.hidden/e.ts');
  });

  it('caps the list and says so', async () => {
    const { text, result } = await callTool(tool({ maxListEntries: 2 }), { pattern: '**/*.ts' });
    expect(text.split('\n')).toEqual([
      'src/a.ts',
      'src/b.ts',
      '[Only the first 2 matches are shown; narrow the pattern or the path.]',
    ]);
    expect(result.details).toMatchObject({ truncated: true, count: 2 });
  });

  it('lists a folder reached through a symlink inside the home under its real path', async () => {
    symlinkSync(path.join(temp.home, 'src'), path.join(temp.home, 'code'));
    const { text } = await callTool(tool(), { pattern: '*', path: 'code' });
    expect(text.split('\n')).toEqual(['src/a.ts', 'src/b.ts', 'src/lib/']);
  });

  it('names a missing folder', async () => {
    const { result, text } = await callTool(tool(), { pattern: '*', path: 'nope' });
    expect(result.isError).toBe(true);
    expect(text).toBe('nope does not exist.');
  });

  it('refuses a file as the folder to list', async () => {
    const { result, text } = await callTool(tool(), { pattern: '*', path: 'README.md' });
    expect(result.isError).toBe(true);
    expect(text).toBe('README.md is a file, not a folder; list_files searches folders.');
  });

  it('refuses escapes and bad patterns', async () => {
    for (const args of [
      { pattern: '*', path: '..' },
      { pattern: '*', path: 'out' },
      { pattern: '../*' },
      { pattern: '/etc/*' },
    ]) {
      const { result } = await callTool(tool(), args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
    }
  });
});
