// Adversarial calls of the computer tools, all within their documented limits (10 MiB files, 255-byte
// names, 100,000 walk entries): pathological globs and regular expressions, pathological edit
// strings, large files, FIFOs, deep and wide trees.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyWorkerAgentTool } from '@switchyard/core';
import { type ComputerToolsLimits, createComputerTools } from '@switchyard/tools-computer';
import type { StallCase, StallCaseSet } from './stall-case';

const WIDE_FILES = 20_000;
const DEEP_LEVELS = 300;
const LONG_NAMES = 400;
const BIG_LINES = 5_000_000;

/** Writes the corpus into `home`: long names, a wide folder, a deep chain, FIFOs, large files. */
function writeStallCorpus(home: string): void {
  const write = (relative: string, content: string) => {
    const file = path.join(home, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  // Names of 200 to 250 characters that almost match *a*a*a*a*b (no b), and a few that do.
  for (let index = 0; index < LONG_NAMES; index += 1) {
    const name = `${String(index).padStart(3, '0')}${'a'.repeat(197 + (index % 50))}`;
    write(`names/${index % 10 === 0 ? `${name.slice(0, -1)}b` : name}`, '');
  }
  for (let index = 0; index < WIDE_FILES; index += 1)
    write(`wide/f${String(index).padStart(5, '0')}.txt`, '');
  write(`${Array.from({ length: DEEP_LEVELS }, () => 'd').join('/')}/x`, 'needle\n');
  mkdirSync(path.join(home, 'pipes'));
  for (const name of ['p1', 'p2', 'p3', 'p4']) execFileSync('mkfifo', [path.join(home, 'pipes', name)]);
  write('pipes/readme.txt', 'plain text\n');
  write('big/lines.txt', 'x\n'.repeat(BIG_LINES));
  write('big/line.txt', 'a'.repeat(10_000_000));
  const codeLine = 'const value = compute(alpha, beta, gamma); // a typical line of code\n';
  write('code/code.ts', codeLine.repeat(Math.ceil(360_000 / codeLine.length)));
  write('many.txt', 'a\n'.repeat(40_000));
  write('evil.txt', `${'a'.repeat(40)}!\n`);
}

/** The computer tools of `home` by name (with `limits`, when given). */
function toolsOf(home: string, limits?: ComputerToolsLimits): Map<string, AnyWorkerAgentTool> {
  return new Map(
    createComputerTools({ home, ...(limits === undefined ? {} : { limits }) }).map((tool) => [
      tool.name,
      tool,
    ]),
  );
}

/** Calls a tool of `tools` as the agent loop does: its arguments validated by the tool's schema first. */
function callTool(tools: Map<string, AnyWorkerAgentTool>, name: string, args: Record<string, unknown>) {
  const tool = tools.get(name);
  if (tool?.schema === undefined) throw new Error(`no Zod tool ${name}`);
  return tool.execute(tool.schema.parse(args), {
    signal: new AbortController().signal,
    toolCallId: 'stall',
    idempotencyKey: 'turn_test:1',
    reportProgress: () => undefined,
  });
}

/** A case that calls one tool of the home with these arguments (after `setup`, when given). */
type Stall = (
  tool: string,
  name: string,
  args: Record<string, unknown>,
  setup?: () => Promise<void>,
) => StallCase;

/** Pathological globs over long names, a wide folder and a deep chain. */
function listFilesCases(stall: Stall): StallCase[] {
  return [
    stall('list_files', `*a*a*a*a*b vs ${LONG_NAMES} names of 200-250 chars`, {
      pattern: '*a*a*a*a*b',
      path: 'names',
    }),
    stall('list_files', `*a*a*a*a*a*b (five stars) vs ${LONG_NAMES} long names`, {
      pattern: '*a*a*a*a*a*b',
      path: 'names',
    }),
    stall('list_files', `(*a) x450 then b (901-char glob) vs ${LONG_NAMES} long names`, {
      pattern: `${'*a'.repeat(450)}b`,
      path: 'names',
    }),
    stall('list_files', `**/*.ts over ${WIDE_FILES.toLocaleString('en-US')} files in one folder`, {
      pattern: '**/*.ts',
      path: 'wide',
    }),
    stall(
      'list_files',
      `8 brace groups (256 alternatives) over ${WIDE_FILES.toLocaleString('en-US')} files`,
      {
        pattern: `**/${'{f,g}'.repeat(8)}*`,
        path: 'wide',
      },
    ),
    stall('list_files', `**/x down a ${DEEP_LEVELS}-level tree`, { pattern: '**/x', path: 'd' }),
  ];
}

/**
 * Searches with a pathological glob, on FIFOs, over a large file, a wide folder and a deep chain,
 * and a catastrophic regular expression (with a short search deadline, `shortDeadline`, so it does
 * not take the default 10 s).
 */
function searchFilesCases(stall: Stall, shortDeadline: Map<string, AnyWorkerAgentTool>): StallCase[] {
  return [
    stall('search_files', 'glob *a*a*a*a*a*b over the whole home', {
      pattern: 'needle',
      glob: '*a*a*a*a*a*b',
    }),
    stall('search_files', 'path is a FIFO', { pattern: 'x', path: 'pipes/p1' }),
    stall('search_files', 'folder holding 4 FIFOs', { pattern: 'text', path: 'pipes' }),
    {
      tool: 'search_files',
      name: '^(a+)+$ (catastrophic) on a 41-char line, 2 s deadline',
      run: () => callTool(shortDeadline, 'search_files', { pattern: '^(a+)+$', path: 'evil.txt' }),
    },
    stall('search_files', `x in a 10 MB file of ${BIG_LINES.toLocaleString('en-US')} lines`, {
      pattern: 'x',
      path: 'big/lines.txt',
    }),
    stall('search_files', `needle in ${WIDE_FILES.toLocaleString('en-US')} files of one folder`, {
      pattern: 'needle',
      path: 'wide',
    }),
    stall('search_files', `needle down a ${DEEP_LEVELS}-level tree`, { pattern: 'needle', path: 'd' }),
  ];
}

/** Reads, edits and writes of large files and FIFOs, and a command with a large output. */
function fileAndCommandCases(stall: Stall, home: string): StallCase[] {
  return [
    stall('read_file', `last lines of a 10 MB file of ${BIG_LINES.toLocaleString('en-US')} lines`, {
      path: 'big/lines.txt',
      offset: BIG_LINES - 1,
    }),
    stall('read_file', 'a 10 MB file of one line', { path: 'big/line.txt' }),
    stall('read_file', 'path is a FIFO', { path: 'pipes/p2' }),
    stall('edit_file', 'old_string of 1,200 newlines between two letters, 360 KB file', {
      path: 'code/code.ts',
      old_string: `x${'\n'.repeat(1_200)}y`,
      new_string: 'z',
    }),
    stall('edit_file', "old_string 'a' found 40,000 times", {
      path: 'many.txt',
      old_string: 'a',
      new_string: 'b',
    }),
    stall('edit_file', 'near miss (2 lines) in a 10 MB file of 5,000,000 lines', {
      path: 'big/lines.txt',
      old_string: 'x\ny\n',
      new_string: 'z',
    }),
    stall('edit_file', "old_string 'a' x5000 + 'b' on a 10 MB line of 'a'", {
      path: 'big/line.txt',
      old_string: `${'a'.repeat(5_000)}b`,
      new_string: 'z',
    }),
    stall(
      'edit_file',
      'replace_all of 5,000,000 occurrences in a 10 MB file',
      { path: 'big/replace.txt', old_string: 'a', new_string: 'bb', replace_all: true },
      () => writeFile(path.join(home, 'big/replace.txt'), 'a\n'.repeat(BIG_LINES)),
    ),
    stall('write_file', `10 MB of ${BIG_LINES.toLocaleString('en-US')} lines`, {
      path: 'big/written.txt',
      content: 'y\n'.repeat(BIG_LINES),
    }),
    stall('run_command', 'seq 1 2000000 (14 MB of output)', { command: 'seq 1 2000000' }),
  ];
}

/** Builds the corpus in a temporary home and returns the computer tools' stall cases. */
export async function createComputerStallCases(): Promise<StallCaseSet> {
  const home = mkdtempSync(path.join(tmpdir(), 'switchyard-stall-'));
  writeStallCorpus(home);
  const tools = toolsOf(home);
  const stall: Stall = (tool, name, args, setup) => ({
    tool,
    name,
    run: () => callTool(tools, tool, args),
    ...(setup === undefined ? {} : { setup }),
  });
  const cases = [
    ...listFilesCases(stall),
    ...searchFilesCases(stall, toolsOf(home, { searchTimeoutMs: 2_000 })),
    ...fileAndCommandCases(stall, home),
  ];
  return {
    category: 'computer',
    corpus: `a temporary home holding ${LONG_NAMES} names of 200-250 characters, ${WIDE_FILES.toLocaleString('en-US')} files in one folder, a ${DEEP_LEVELS}-level folder chain, 4 FIFOs, two 10 MB files (${BIG_LINES.toLocaleString('en-US')} short lines; one line), a 360 KB source file and a file of 40,000 lines "a"; every limit at its default, except \`limits.searchTimeoutMs: 2000\` for the catastrophic regular expression`,
    cases,
    close: async () => rmSync(home, { recursive: true, force: true }),
  };
}
