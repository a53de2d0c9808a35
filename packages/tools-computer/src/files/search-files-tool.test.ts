import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callTool, toolOnHome, useTempHome } from '../__fixtures__/tool-harness';
import { createSearchFilesTool } from './search-files-tool';

const temp = useTempHome(() => {
  temp.write('src/a.ts', 'export const answer = 42;\n// TODO: more\n');
  temp.write('src/b.md', 'todo list\nnothing\n');
  temp.write('img.bin', Buffer.from([0, 1, 2, 0x54, 0x4f, 0x44, 0x4f]));
  temp.write('../outside/secret.ts', 'TODO outside\n');
  symlinkSync(path.join(temp.outside, 'secret.ts'), path.join(temp.home, 'link.ts'));
});
const tool = toolOnHome(temp, createSearchFilesTool);

describe('searching', () => {
  it('returns path:line: text for each match and labels the call', async () => {
    const { text, label } = await callTool(tool(), { pattern: 'TODO' });
    expect(text).toBe('src/a.ts:2: // TODO: more\n[1 binary or oversized file was skipped.]');
    expect(label).toBe('Found 1 match for `TODO`');
  });

  it('ignores case with (?i) and filters by glob', async () => {
    expect((await callTool(tool(), { pattern: '(?i)todo' })).text.split('\n').slice(0, 2)).toEqual([
      'src/a.ts:2: // TODO: more',
      'src/b.md:1: todo list',
    ]);
    expect((await callTool(tool(), { pattern: '(?i)todo', glob: '*.md' })).text).toBe(
      'src/b.md:1: todo list',
    );
  });

  it('searches one file given as path', async () => {
    expect((await callTool(tool(), { pattern: '\\d+', path: 'src/a.ts' })).text).toBe(
      'src/a.ts:1: export const answer = 42;',
    );
  });

  it('caps the matches', async () => {
    temp.write('many.txt', 'hit\n'.repeat(50));
    const { text, result } = await callTool(tool({ maxSearchMatches: 3 }), {
      pattern: 'hit',
      path: 'many.txt',
    });
    expect(text.split('\n')).toHaveLength(4);
    expect(result.details).toMatchObject({ matches: 3, truncated: true });
  });

  it('keeps walk order across files when capping', async () => {
    for (const name of ['x1', 'x2', 'x3']) temp.write(`hits/${name}.txt`, 'hit one\nhit two\n');
    const { text } = await callTool(tool({ maxSearchMatches: 3 }), { pattern: 'hit', path: 'hits' });
    expect(text.split('\n')).toEqual([
      'hits/x1.txt:1: hit one',
      'hits/x1.txt:2: hit two',
      'hits/x2.txt:1: hit one',
      '[Only the first 3 matches are shown; narrow the pattern, path or glob.]',
    ]);
  });

  it('reports an invalid regular expression and paths outside the home as errors', async () => {
    expect((await callTool(tool(), { pattern: '(' })).text).toMatch(/^Invalid regular expression/);
    expect((await callTool(tool(), { pattern: 'x', path: '../outside' })).result.isError).toBe(true);
  });

  it('stops a catastrophic regular expression without blocking the event loop', async () => {
    temp.write('evil.txt', `${'a'.repeat(40)}!\n`);
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 10);
    const { result, text } = await callTool(tool({ searchTimeoutMs: 500 }), {
      pattern: '^(a+)+$',
      path: 'evil.txt',
    });
    clearInterval(ticker);
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^The search was stopped: the search took longer than 500 ms/);
    expect(ticks).toBeGreaterThan(0);
  });
});
