import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callTool, toolOnHome, useTempHome } from '../__fixtures__/tool-harness';
import { createEditFileTool } from './edit-file-tool';

const temp = useTempHome(() => temp.write('src/math.js', source, 0o755));
const tool = toolOnHome(temp, createEditFileTool);
/** Edits `src/math.js` (or `options.path`) with the tool, as the model would. */
const edit = (
  old_string: string,
  new_string: string,
  options: { path?: string; replace_all?: boolean } = {},
) => callTool(tool(), { path: 'src/math.js', old_string, new_string, ...options });
const read = (file: string) => readFileSync(path.join(temp.home, file), 'utf8');
const source = [
  'function add(a, b) {',
  '  return a - b;',
  '}',
  '',
  'function sub(a, b) {',
  '  return a - b;',
  '}',
  '',
].join('\n');

describe('exact replacement', () => {
  it('replaces a unique match, keeps the mode, and labels the call', async () => {
    const editFile = tool();
    expect(editFile).toMatchObject({ isDestructive: true, executionMode: 'sequential' });
    const { text, label } = await callTool(editFile, {
      path: 'src/math.js',
      old_string: 'function add(a, b) {\n  return a - b;',
      new_string: 'function add(a, b) {\n  return a + b;',
    });
    expect(read('src/math.js')).toContain('return a + b;');
    expect(read('src/math.js')).toContain('function sub(a, b) {\n  return a - b;');
    expect(text).toContain('Edited src/math.js: 1 replacement (first at line 1).');
    expect(text).toContain('     2\t  return a + b;');
    expect(label).toBe('Edited src/math.js (1 replacement)');
    expect(statSync(path.join(temp.home, 'src/math.js')).mode & 0o777).toBe(0o755);
  });

  it('refuses several matches, naming their lines, and leaves the file untouched', async () => {
    const { result, text } = await edit('return a - b;', 'return 0;');
    expect(result.isError).toBe(true);
    expect(text).toBe(
      'old_string occurs 2 times in src/math.js (at lines 2, 6); include more surrounding text to make it unique, or set replace_all to replace them all.',
    );
    expect(read('src/math.js')).toBe(source);
  });

  it('replaces every match with replace_all', async () => {
    const { text } = await edit('return a - b;', 'return 0;', { replace_all: true });
    expect(text).toContain('2 replacements');
    expect(read('src/math.js').match(/return 0;/g)).toHaveLength(2);
  });

  it('shows the nearest candidates when nothing matches', async () => {
    const { result, text } = await edit('function sub(a, c) {\n  return a - c;', 'x');
    expect(result.isError).toBe(true);
    expect(text).toContain('old_string was not found in src/math.js.');
    expect(text).toMatch(
      /- at line 5 \(\d+% similar\):\n {5}5\tfunction sub\(a, b\) \{\n {5}6\t {2}return a - b;/,
    );
    expect(read('src/math.js')).toBe(source);
  });

  it('says when the only difference is whitespace', async () => {
    const { text } = await edit('function add(a, b) {\nreturn a - b;', 'x');
    expect(text).toContain('- at line 1 (matches except for whitespace or indentation):');
  });

  it('edits non-ASCII text and ASCII text alike (two ways of reading the file)', async () => {
    temp.write('menu.txt', 'naïve café 😀\nplain line\n');
    await edit('café 😀', 'bar ☕', { path: 'menu.txt' });
    expect(read('menu.txt')).toBe('naïve bar ☕\nplain line\n');
    await edit('plain', 'plainer', { path: 'menu.txt' });
    expect(read('menu.txt')).toBe('naïve bar ☕\nplainer line\n');
    temp.write('ascii.txt', 'only ascii here\n');
    await edit('ascii', 'ASCII ✓', { path: 'ascii.txt' });
    expect(read('ascii.txt')).toBe('only ASCII ✓ here\n');
  });

  it('treats $ patterns in new_string literally', async () => {
    await edit('function add', "function $&$1$'");
    expect(read('src/math.js').startsWith("function $&$1$'(a, b)")).toBe(true);
  });

  it('refuses an empty or unchanged old_string and binary files', async () => {
    temp.write('b.bin', Buffer.from([0, 1, 2]));
    expect((await edit('', 'x')).text).toMatch(/old_string is empty/);
    expect((await edit('a', 'a')).text).toMatch(/identical/);
    expect((await edit('a', 'b', { path: 'b.bin' })).text).toMatch(/binary file/);
  });

  it('refuses a path outside the home', async () => {
    const { result, text } = await edit('a', 'b', { path: '../outside/x.js' });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/outside the agent home/);
  });
});
