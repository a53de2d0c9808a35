// Inputs from an adversarial review of the file tools, all within their documented limits, that
// froze the whole worker process or read outside the home. Each runs through the tools' validated
// `execute` and asserts a prompt, correct result and that the event loop kept running meanwhile.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { closeSync, constants, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureEventLoop, STALL_BOUNDS } from '@switchyard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, useTempHome } from '../__fixtures__/tool-harness';
import { resolveComputerSettings } from '../resolve-computer-settings';
import { createEditFileTool } from './edit-file-tool';
import { createListFilesTool } from './list-files-tool';
import { createReadFileTool } from './read-file-tool';
import { createSearchFilesTool } from './search-files-tool';

const temp = useTempHome(undefined, 'switchyard-untrusted-');
const settings = () => resolveComputerSettings({ home: temp.home });

async function watched<T>(call: () => Promise<T>): Promise<T> {
  const { value, maxBusyMs, maxGapMs } = await measureEventLoop(call);
  // The tools keep the loop's gaps to milliseconds; a second of the main thread's own run time
  // without a timer run means the process froze.
  if (maxBusyMs !== undefined)
    expect(maxBusyMs, 'most main-thread run time between timer runs (ms)').toBeLessThan(
      STALL_BOUNDS.maxBusyMs,
    );
  expect(maxGapMs, 'longest gap between timer runs (ms)').toBeLessThan(STALL_BOUNDS.maxGapMs);
  return value;
}

describe('glob patterns with many stars', () => {
  it('list_files matches *a*a*a*a*b and *a*a*a*a*a*b against long names without stalling', async () => {
    temp.write('a'.repeat(200), '');
    temp.write('a'.repeat(250), '');
    temp.write(`${'a'.repeat(240)}b`, '');
    for (const pattern of ['*a*a*a*a*b', '*a*a*a*a*a*b']) {
      const { result, text } = await watched(() => callTool(createListFilesTool(settings()), { pattern }));
      expect(result.isError).toBeUndefined();
      expect(text).toBe(`${'a'.repeat(240)}b`);
    }
  });

  it('search_files filters by such a glob without stalling', async () => {
    temp.write(`deep/${'a'.repeat(200)}`, 'needle\n');
    temp.write(`deep/${'a'.repeat(120)}b`, 'needle\n');
    const { text } = await watched(() =>
      callTool(createSearchFilesTool(settings()), { pattern: 'needle', glob: '*a*a*a*a*a*b' }),
    );
    expect(text).toBe(`deep/${'a'.repeat(120)}b:1: needle`);
  });

  it('refuses a glob that would cost too much, promptly, saying what to do instead', async () => {
    for (let index = 0; index < 1_500; index += 1)
      temp.write(`n/${String(index).padStart(5, '0')}${'a'.repeat(245)}`, '');
    const pattern = `${'*a'.repeat(450)}b`;
    const { result, text } = await watched(() =>
      callTool(createListFilesTool(settings()), { pattern: `n/${pattern}` }),
    );
    expect(result.isError).toBe(true);
    expect(text).toMatch(/too costly to match .*; use fewer wildcards per name/);
  });
});

describe('edit_file on pathological strings', () => {
  it('searches for near misses of a 1,200-newline old_string in a 360 KB file without stalling', async () => {
    const line = 'const value = compute(alpha, beta, gamma); // a typical line of code\n';
    temp.write('big.ts', line.repeat(Math.ceil(360_000 / line.length)));
    const { result, text } = await watched(() =>
      callTool(createEditFileTool(settings()), {
        path: 'big.ts',
        old_string: `x${'\n'.repeat(1_200)}y`,
        new_string: 'z',
      }),
    );
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^old_string was not found in big\.ts\./);
  });

  it('names the first 20 lines of 40,000 occurrences and counts the rest, without stalling', async () => {
    temp.write('many.txt', 'a\n'.repeat(40_000));
    const { result, text } = await watched(() =>
      callTool(createEditFileTool(settings()), { path: 'many.txt', old_string: 'a', new_string: 'b' }),
    );
    expect(result.isError).toBe(true);
    const lines = Array.from({ length: 20 }, (_, index) => index + 1).join(', ');
    expect(text).toBe(
      `old_string occurs 40,000 times in many.txt (at lines ${lines} and 39,980 more); include more surrounding text to make it unique, or set replace_all to replace them all.`,
    );
    expect(readFileSync(path.join(temp.home, 'many.txt'), 'utf8')).toBe('a\n'.repeat(40_000));
  });

  it('replaces all 40,000 occurrences with replace_all, and shows a bounded excerpt', async () => {
    temp.write('many.txt', 'a\n'.repeat(40_000));
    const { text } = await watched(() =>
      callTool(createEditFileTool(settings()), {
        path: 'many.txt',
        old_string: 'a',
        new_string: 'b',
        replace_all: true,
      }),
    );
    expect(text.split('\n')[0]).toBe('Edited many.txt: 40,000 replacements (first at line 1).');
    expect(readFileSync(path.join(temp.home, 'many.txt'), 'utf8')).toBe('b\n'.repeat(40_000));
  });

  it('reads a file of five million short lines in stretches', async () => {
    temp.write('lines.txt', 'x\n'.repeat(5_000_000));
    const { text, result } = await watched(() =>
      callTool(createReadFileTool(settings()), { path: 'lines.txt', offset: 4_999_999 }),
    );
    expect(text).toBe('4999999\tx\n5000000\tx');
    expect(result.details).toMatchObject({ totalLines: 5_000_000, linesRead: 2 });
  });
});

describe('special files', () => {
  const fifos = ['p1', 'p2', 'p3', 'p4'];

  beforeEach(() => {
    mkdirSync(path.join(temp.home, 'pipes'));
    for (const name of fifos) execFileSync('mkfifo', [path.join(temp.home, 'pipes', name)]);
    temp.write('pipes/readme.txt', 'plain text\n');
  });

  afterEach(() => {
    // On a regression the opens would still be blocked in the thread pool: a writer's open lets them
    // finish so the rest of the suite can run. Non-blocking, it fails at once (ENXIO) when nobody
    // reads, and without O_CREAT it never leaves a file behind for the home's clean-up to trip on.
    for (const name of fifos) {
      try {
        closeSync(openSync(path.join(temp.home, 'pipes', name), constants.O_WRONLY | constants.O_NONBLOCK));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
      }
    }
  });

  it('never opens a FIFO: search_files refuses one as path and skips them in a folder, and the thread pool stays free', async () => {
    const searchFiles = createSearchFilesTool(settings());
    const calls = await watched(() =>
      Promise.all([
        ...fifos.map((name) => callTool(searchFiles, { pattern: 'x', path: `pipes/${name}` })),
        callTool(searchFiles, { pattern: 'text', path: 'pipes' }),
        callTool(searchFiles, { pattern: 'text', glob: 'p*' }),
      ]),
    );
    for (const [index, name] of fifos.entries()) {
      expect(calls[index]?.result.isError).toBe(true);
      expect(calls[index]?.text).toBe(
        `pipes/${name} is a named pipe (FIFO), not a regular file; search_files only reads regular files and folders.`,
      );
    }
    expect(calls[4]?.text).toBe(
      'pipes/readme.txt:1: plain text\n[4 special files (named pipes, sockets or devices) were skipped without being opened.]',
    );
    expect(calls[4]?.result.details).toMatchObject({ skippedSpecialFiles: 4, searchedFiles: 1 });
    expect(calls[5]?.result.details).toMatchObject({ skippedSpecialFiles: 4, searchedFiles: 0 });
    // Blocking opens would hold all four libuv threads: file reads and DNS lookups would hang.
    const deadline = new Promise((_, reject) =>
      setTimeout(() => reject(new Error('the thread pool is blocked')), 10_000).unref(),
    );
    await Promise.race([
      Promise.all([
        lookup('localhost'),
        callTool(createReadFileTool(settings()), { path: 'pipes/readme.txt' }),
      ]),
      deadline,
    ]);
  });

  it('read_file and edit_file refuse a FIFO, naming what it is', async () => {
    const read = await watched(() => callTool(createReadFileTool(settings()), { path: 'pipes/p1' }));
    expect(read.text).toBe(
      'pipes/p1 is a named pipe (FIFO), not a regular file; file tools only read regular files.',
    );
    const edit = await callTool(createEditFileTool(settings()), {
      path: 'pipes/p2',
      old_string: 'a',
      new_string: 'b',
    });
    expect(edit.result.isError).toBe(true);
    expect(edit.text).toMatch(/named pipe \(FIFO\)/);
  });
});

describe('folders swapped for symlinks during a walk', () => {
  const FOLDERS = 8;
  let swapper: ChildProcess | undefined;

  afterEach(async () => {
    if (swapper !== undefined && swapper.exitCode === null) {
      const exited = new Promise((resolve) => swapper?.once('exit', resolve));
      swapper.kill('SIGKILL');
      await exited;
    }
    swapper = undefined;
  });

  it('never lists or reads what a swapped-in symlink points to', async () => {
    for (let index = 0; index < FOLDERS; index += 1) temp.write(`tree/d${index}/sub/inner.txt`, 'inside\n');
    writeFileSync(path.join(temp.outside, 'MARKER-FILE.txt'), 'MARKER outside\n');
    mkdirSync(path.join(temp.outside, 'sub'));
    writeFileSync(path.join(temp.outside, 'sub', 'inner.txt'), 'MARKER outside too\n');
    // Each folder is a real folder for ~1 ms, then a symlink to the outside folder for ~1 ms.
    const script = `
      const fs = require('node:fs');
      const [tree, outside, count] = process.argv.slice(1);
      const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      process.stdout.write('ready\\n');
      for (;;) {
        for (let i = 0; i < Number(count); i += 1) {
          fs.renameSync(tree + '/d' + i, tree + '/d' + i + '.away');
          fs.symlinkSync(outside, tree + '/d' + i);
        }
        pause(1);
        for (let i = 0; i < Number(count); i += 1) {
          fs.unlinkSync(tree + '/d' + i);
          fs.renameSync(tree + '/d' + i + '.away', tree + '/d' + i);
        }
        pause(1);
      }`;
    swapper = spawn(
      process.execPath,
      ['-e', script, path.join(temp.home, 'tree'), temp.outside, String(FOLDERS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => swapper?.stdout?.once('data', resolve));
    const listFiles = createListFilesTool(settings());
    const searchFiles = createSearchFilesTool(settings());
    let sawSymlink = 0;
    let sawInside = 0;
    const leaks: string[] = [];
    // 40 rounds of three racing calls, or as many as 15 s allow on a loaded machine (at least 5).
    const started = performance.now();
    let rounds = 0;
    for (; rounds < 40 && (rounds < 5 || performance.now() - started < 15_000); rounds += 1) {
      const calls = await Promise.all([
        callTool(listFiles, { pattern: '**', path: 'tree' }),
        callTool(searchFiles, { pattern: 'MARKER|inside', path: 'tree' }),
        callTool(searchFiles, { pattern: 'MARKER|inside', path: 'tree/d1' }),
      ]);
      for (const { text } of calls) {
        // The pattern itself says MARKER in "No matches" results: look for what only outside has.
        if (/MARKER outside|MARKER-FILE/.test(text)) leaks.push(text);
        sawInside += text.split('\n').filter((line) => line.endsWith(': inside')).length;
      }
      // A folder listed without its trailing slash was a symlink when the walk read its parent.
      sawSymlink += (calls[0]?.text.split('\n') ?? []).filter((line) => /^tree\/d\d$/.test(line)).length;
    }
    // Before walks were checked by descriptor, 45 to 52 of 120 such calls returned outside content.
    expect(leaks, `leaks in ${rounds} rounds`).toEqual([]);
    // The race really ran: the walks met the symlinks, and still found the real files.
    expect(sawSymlink).toBeGreaterThan(0);
    expect(sawInside).toBeGreaterThan(0);
  });
});
