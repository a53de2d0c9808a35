import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callTool, toolOnHome, useTempHome } from '../__fixtures__/tool-harness';
import { createWriteFileTool } from './write-file-tool';

const temp = useTempHome();
const tool = toolOnHome(temp, createWriteFileTool);

describe('writing', () => {
  it('creates parent folders and labels the call', async () => {
    const writeFile = tool();
    expect(writeFile).toMatchObject({ isDestructive: true, executionMode: 'sequential' });
    expect(writeFile.describeActivity({ path: 'notes/todo.md', content: '' })).toBe('Writing notes/todo.md');
    const { text, label } = await callTool(writeFile, { path: 'notes/todo.md', content: 'a\nb\n' });
    expect(text).toBe('Created notes/todo.md (2 lines, 4 bytes).');
    expect(label).toBe('Wrote 2 lines to notes/todo.md');
    expect(readFileSync(path.join(temp.home, 'notes/todo.md'), 'utf8')).toBe('a\nb\n');
  });

  it('overwrites an existing file', async () => {
    temp.write('a.txt', 'old');
    const { text } = await callTool(tool(), { path: 'a.txt', content: 'new' });
    expect(text).toBe('Overwrote a.txt (1 line, 3 bytes).');
  });

  it('refuses escapes and leaves the outside untouched', async () => {
    temp.write('../outside/victim.txt', 'untouched');
    symlinkSync(path.join(temp.outside, 'victim.txt'), path.join(temp.home, 'link.txt'));
    symlinkSync(temp.outside, path.join(temp.home, 'out'));
    for (const attempt of [
      '../outside/victim.txt',
      path.join(temp.outside, 'victim.txt'),
      'link.txt',
      'out/victim.txt',
      'out/new.txt',
    ]) {
      const { result } = await callTool(tool(), { path: attempt, content: 'owned' });
      expect(result.isError, attempt).toBe(true);
    }
    expect(readFileSync(path.join(temp.outside, 'victim.txt'), 'utf8')).toBe('untouched');
  });

  it('refuses to overwrite a directory', async () => {
    temp.write('dir/x', '');
    const { result, text } = await callTool(tool(), { path: 'dir', content: 'x' });
    expect(result.isError).toBe(true);
    expect(text).toBe('dir is a directory.');
  });
});

describe("the home's disk quota", () => {
  it('refuses a write that would take the home past limits.maxHomeBytes, and keeps the file as it was', async () => {
    temp.write('keep.txt', 'x'.repeat(600 * 1024));
    const writeFile = tool({ maxHomeBytes: 1024 * 1024 });
    const { result, text } = await callTool(writeFile, { path: 'big.txt', content: 'y'.repeat(600 * 1024) });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^big\.txt was not written: the home holds 0\.6 MiB of its 1\.0 MiB disk quota/);
    expect(text).toContain('Delete files first');
    // Replacing a file counts only what it adds: the same size again fits.
    const replaced = await callTool(writeFile, { path: 'keep.txt', content: 'z'.repeat(600 * 1024) });
    expect(replaced.result.isError, replaced.text).toBeUndefined();
    const small = await callTool(writeFile, { path: 'small.txt', content: 'fits' });
    expect(small.result.isError, small.text).toBeUndefined();
  });
});
