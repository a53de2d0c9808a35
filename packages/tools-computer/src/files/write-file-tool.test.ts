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
