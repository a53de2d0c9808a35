// Overhead of the computer tools against their plain equivalents, measured in the same run:
// run_command vs a bare `bash -lc` spawn (the cost of tracking and tree cleanup), what the sandbox
// and each of its parts add to a command's start (median of 50, interleaved), a sandboxed
// run_command vs an unsandboxed one (median of 50, interleaved), the event loop's delay while many
// commands run, search_files / list_files vs grep / find over the same generated tree, and a write
// at 250, 500 and 1,000 folders deep (path resolution is linear in the depth).
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { measure, ms, percentile, report } from '@switchyard/bench-kit';
import type { AnyWorkerAgentTool } from '@switchyard/core';
import { checkSandbox, createComputerTools } from '../src/index';
import { measureSandboxCost } from './sandbox-cost';

const run = promisify(execFile);
const home = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-'));
for (let folder = 0; folder < 20; folder += 1) {
  mkdirSync(path.join(home, `src/m${folder}`), { recursive: true });
  for (let file = 0; file < 25; file += 1) {
    const lines = Array.from(
      { length: 200 },
      (_, line) => `const value${line} = ${line}; // ${line % 50 === 0 ? 'TODO' : 'ok'}`,
    );
    writeFileSync(path.join(home, `src/m${folder}/f${file}.ts`), `${lines.join('\n')}\n`);
  }
}

const tools = new Map<string, AnyWorkerAgentTool>(
  createComputerTools({ home, sandbox: 'off' }).map((tool) => [tool.name, tool]),
);
const context = {
  signal: new AbortController().signal,
  toolCallId: 'bench',
  idempotencyKey: 'turn_test:1',
  reportProgress: () => undefined,
};
const call = (name: string, params: Record<string, unknown>) => {
  const tool = tools.get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool.execute(params, context);
};

function bareSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-lc', 'true'], {
      cwd: home,
      stdio: 'ignore',
      detached: true,
      // Same HOME as the tool, so both run the same login profile.
      env: { PATH: process.env.PATH, HOME: home },
    });
    child.once('exit', () => resolve());
    child.once('error', reject);
  });
}

try {
  process.stdout.write('tools-computer: 500 files of 200 lines (2.8 MB)\n');
  const bare = await measure(bareSpawn, { runs: 20 });
  const tool = await measure(() => call('run_command', { command: 'true' }), { runs: 20 });
  report('bash -lc true, bare spawn (baseline)', ms(bare.median));
  report(
    'run_command true (env, tracking, tree cleanup)',
    ms(tool.median),
    `${(tool.median / bare.median).toFixed(2)}x baseline`,
  );

  const sandbox = await checkSandbox('required');
  if (!sandbox.active) throw new Error(`the sandbox benchmark needs bubblewrap: ${sandbox.reason}`);
  const [sandboxed] = createComputerTools({ home, sandbox: 'required' });
  const unsandboxed = tools.get('run_command');
  if (sandboxed === undefined || unsandboxed === undefined) throw new Error('no run_command');
  process.stdout.write(
    '\nsandbox start-up, bubblewrap with one part added at a time (median of 50, interleaved)\n',
  );
  const parts = await measureSandboxCost(home, 50);
  // `ms` prints a value under 1 ms in µs, a negative one included.
  const signed = (value: number) => `${value >= 0 ? '+' : '-'}${ms(Math.abs(value))}`;
  const before = parts.find((row) => row.name.startsWith('before issue 38'))?.medianMs ?? Number.NaN;
  for (const row of parts) {
    report(
      row.name,
      ms(row.medianMs),
      Number.isNaN(before) || row.medianOverBeforeMs === undefined
        ? ''
        : `${signed(row.medianMs - before)} vs before issue 38 (round by round: ${signed(row.medianOverBeforeMs)})`,
    );
  }

  // Interleaved, so both see the same load on a shared machine.
  const times = { sandboxed: [] as number[], unsandboxed: [] as number[] };
  for (let round = 0; round < 55; round += 1) {
    for (const [name, tool] of [
      ['unsandboxed', unsandboxed],
      ['sandboxed', sandboxed],
    ] as const) {
      const start = performance.now();
      await tool.execute({ command: 'true' }, context);
      if (round >= 5) times[name].push(performance.now() - start);
    }
  }
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  report('run_command true, sandbox off (median of 50, interleaved)', ms(median(times.unsandboxed)));
  report(
    `run_command true, sandboxed (${sandbox.version}, network none)`,
    ms(median(times.sandboxed)),
    `+${ms(median(times.sandboxed) - median(times.unsandboxed))} at the median`,
  );

  // The event loop while many commands run: the delay a timer sees (one daemon runs every agent).
  const concurrent = 20;
  const eventLoop = async (label: string, work: () => Promise<unknown>) => {
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    const cpu = process.cpuUsage();
    histogram.enable();
    await work();
    histogram.disable();
    const used = process.cpuUsage(cpu);
    report(
      label,
      `p99 ${ms(histogram.percentile(99) / 1e6)}`,
      `max ${ms(histogram.max / 1e6)}, main thread CPU ${ms((used.user + used.system) / 1000)}`,
    );
  };
  const start = (tool: AnyWorkerAgentTool, command: string) =>
    tool.execute({ command }, { ...context, signal: new AbortController().signal });
  const together = (tool: AnyWorkerAgentTool, command: string) => () =>
    Promise.all(Array.from({ length: concurrent }, () => start(tool, command)));
  const staggered = (tool: AnyWorkerAgentTool, command: string) => () =>
    Promise.all(
      Array.from({ length: concurrent }, async (_, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 100));
        return start(tool, command);
      }),
    );
  await eventLoop(
    'event loop idle for 3 s (baseline)',
    () => new Promise((resolve) => setTimeout(resolve, 3000)),
  );
  for (const [name, tool] of [
    ['sandbox off', unsandboxed],
    ['sandboxed', sandboxed],
  ] as const) {
    await eventLoop(
      `event loop, ${concurrent} x sleep 4 started 100 ms apart, ${name}`,
      staggered(tool, 'sleep 4'),
    );
    await eventLoop(
      `event loop, ${concurrent} x (sleep 30 & sleep 3) at once, ${name}`,
      together(tool, 'sleep 30 & sleep 3'),
    );
  }

  const grep = await measure(() => run('grep', ['-rn', 'TODO', 'src'], { cwd: home }), { runs: 10 });
  const search = await measure(() => call('search_files', { pattern: 'TODO', path: 'src' }), { runs: 10 });
  report('grep -rn TODO src (baseline)', ms(grep.median));
  report(
    'search_files TODO in src (worker-thread regex)',
    ms(search.median),
    `${(search.median / grep.median).toFixed(2)}x baseline`,
  );

  const find = await measure(() => run('find', ['src', '-name', '*.ts'], { cwd: home }), { runs: 10 });
  const list = await measure(() => call('list_files', { pattern: '**/*.ts', path: 'src' }), { runs: 10 });
  report('find src -name *.ts (baseline)', ms(find.median));
  report('list_files **/*.ts in src', ms(list.median), `${(list.median / find.median).toFixed(2)}x baseline`);

  const read = await measure(() => call('read_file', { path: 'src/m0/f0.ts' }), { runs: 50 });
  report('read_file 200 lines', ms(read.median));

  // Each level is one lookup in one open folder: the time grows with the depth, not its square.
  for (const depth of [250, 500, 1_000]) {
    const deep = `deep${depth}/${Array.from({ length: depth - 1 }, () => 'a').join('/')}`;
    await call('write_file', { path: `${deep}/notes.txt`, content: 'first\n' });
    const write = await measure(() => call('write_file', { path: `${deep}/notes.txt`, content: 'hello\n' }), {
      runs: 10,
    });
    const deepRead = await measure(() => call('read_file', { path: `${deep}/notes.txt` }), { runs: 10 });
    report(
      `write_file and read_file ${depth.toLocaleString('en-US')} folders deep`,
      ms(write.median),
      `read ${ms(deepRead.median)}`,
    );
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
