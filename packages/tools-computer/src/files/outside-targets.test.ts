import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, useTempHome } from '../__fixtures__/tool-harness';
import { resolveComputerSettings } from '../resolve-computer-settings';
import { loadSkills } from '../skills/load-skills';
import { createEditFileTool } from './edit-file-tool';
import { createListFilesTool } from './list-files-tool';
import { createReadFileTool } from './read-file-tool';
import { createSearchFilesTool } from './search-files-tool';
import { createWriteFileTool } from './write-file-tool';

const temp = useTempHome(undefined, 'switchyard-outside-');
const settings = () => resolveComputerSettings({ home: temp.home });

let writers: ChildProcess[] = [];

afterEach(() => {
  for (const writer of writers) writer.kill('SIGKILL');
  writers = [];
});

/**
 * A FIFO outside the home with a writer blocked on opening it: any open of the FIFO for reading
 * (even with O_NONBLOCK) lets the writer go on, and it then creates `released`.
 */
function blockedFifo(): { fifo: string; released: string } {
  const fifo = path.join(temp.outside, 'pipe');
  const released = path.join(temp.outside, 'released');
  execFileSync('mkfifo', [fifo]);
  writers.push(spawn('sh', ['-c', `exec 3>'${fifo}'; touch '${released}'`], { stdio: 'ignore' }));
  return { fifo, released };
}

/** Waits long enough for a released writer to have created its file. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('file tools open nothing outside the home', () => {
  it.each([
    ['read_file', () => callTool(createReadFileTool(settings()), { path: 'link' })],
    [
      'edit_file',
      () => callTool(createEditFileTool(settings()), { path: 'link', old_string: 'a', new_string: 'b' }),
    ],
    ['search_files', () => callTool(createSearchFilesTool(settings()), { pattern: 'a', path: 'link' })],
  ])('%s refuses a symlink to an outside FIFO without opening it (its blocked writer stays blocked)', async (_name, call) => {
    const { fifo, released } = blockedFifo();
    symlinkSync(fifo, path.join(temp.home, 'link'));
    const { result, text } = await call();
    expect(result.isError).toBe(true);
    expect(text).toMatch(/outside the agent home/);
    await settle();
    expect(existsSync(released)).toBe(false);
  });

  it('read_file refuses a path through a symlinked folder that leads outside, without opening the FIFO there', async () => {
    const { released } = blockedFifo();
    symlinkSync(temp.outside, path.join(temp.home, 'out'));
    const { result, text } = await callTool(createReadFileTool(settings()), { path: 'out/pipe' });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/outside the agent home/);
    await settle();
    expect(existsSync(released)).toBe(false);
  });

  it('Skill loading reports a SKILL.md that is a symlink to an outside FIFO, without opening it', async () => {
    const { fifo, released } = blockedFifo();
    mkdirSync(path.join(temp.home, 'skills', 'calc'), { recursive: true });
    symlinkSync(fifo, path.join(temp.home, 'skills', 'calc', 'SKILL.md'));
    const { skills, problems } = await loadSkills(temp.home);
    expect(skills).toEqual([]);
    expect(problems[0]?.message).toMatch(/outside the agent home/);
    await settle();
    expect(existsSync(released)).toBe(false);
  });

  it('a FIFO inside the home is refused by its type, not opened', async () => {
    const fifo = path.join(temp.home, 'pipe');
    const released = path.join(temp.outside, 'released');
    execFileSync('mkfifo', [fifo]);
    writers.push(spawn('sh', ['-c', `exec 3>'${fifo}'; touch '${released}'`], { stdio: 'ignore' }));
    const { result, text } = await callTool(createReadFileTool(settings()), { path: 'pipe' });
    expect(result.isError).toBe(true);
    expect(text).toContain('named pipe (FIFO)');
    await settle();
    expect(existsSync(released)).toBe(false);
  });
});

describe('a 1,000-level path', () => {
  it('is written, read, edited and listed (each component is one lookup in one open folder)', async () => {
    const deep = Array.from({ length: 1_000 }, () => 'a').join('/');
    const file = `${deep}/notes.txt`;
    const written = await callTool(createWriteFileTool(settings()), { path: file, content: 'hello\n' });
    expect(written.result.isError).toBeUndefined();
    const read = await callTool(createReadFileTool(settings()), { path: file });
    expect(read.text).toBe('     1\thello');
    const edited = await callTool(createEditFileTool(settings()), {
      path: file,
      old_string: 'hello',
      new_string: 'goodbye',
    });
    expect(edited.result.isError).toBeUndefined();
    const listed = await callTool(createListFilesTool(settings()), { pattern: '*.txt', path: deep });
    expect(listed.text).toBe(`${deep}/notes.txt`);
  });
});
