import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestToolContext } from '@switchyard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processesWith, uniqueSleepToken as token } from '../__fixtures__/host-processes';
import { parseParams } from '../__fixtures__/tool-harness';
import type { ComputerToolsContext, SandboxMode, SpawnFunction } from '../computer-tools-context';
import { resolveComputerSettings } from '../resolve-computer-settings';
import { isProcessAlive } from './process-tree';
import { createRunCommandTool, type RunCommandParams } from './run-command-tool';

let home: string;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'switchyard-run-'));
});

afterEach(() => rmSync(home, { recursive: true, force: true }));

function pidsIn(file: string): number[] {
  return readFileSync(path.join(home, file), 'utf8')
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '')
    .map(Number);
}

async function waitForFile(file: string, words: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    try {
      if (pidsIn(file).length >= words) return;
    } catch {
      // not written yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${file} never got ${words} pids`);
}

const modes: { name: string; sandbox: SandboxMode }[] = [
  // `required`: where bubblewrap cannot sandbox, creating the tool fails and so do these tests.
  { name: 'in the sandbox', sandbox: 'required' },
  { name: 'without the sandbox (mode off)', sandbox: 'off' },
];

describe.each(modes)('run_command $name', ({ sandbox }) => {
  function tool(overrides: Partial<ComputerToolsContext> = {}) {
    return createRunCommandTool(
      resolveComputerSettings({
        home,
        sandbox,
        ...overrides,
        limits: { killGraceMs: 300, ...overrides.limits },
      }),
    );
  }

  async function run(
    params: RunCommandParams,
    overrides: Partial<ComputerToolsContext> = {},
    signal?: AbortSignal,
  ) {
    const runCommand = tool(overrides);
    const parsed = parseParams(runCommand, params);
    const result = await runCommand.execute(parsed, createTestToolContext({ signal }));
    return { result, text: typeof result.content === 'string' ? result.content : '', runCommand, parsed };
  }

  describe('running commands', () => {
    it('runs in the home with bash, interleaving stdout and stderr in order', async () => {
      const { result, text } = await run({ command: 'pwd; echo out1; echo err1 >&2; echo out2; exit 3' });
      expect(text).toContain(`${home}\nout1\nerr1\nout2`);
      expect(text).toContain('Exit code 3 after');
      expect(result.isError).toBeUndefined();
      expect(result.details).toMatchObject({
        exitCode: 3,
        signal: null,
        timedOut: false,
        sandboxed: sandbox === 'required',
      });
    });

    it('starts the command with SIGINT and SIGQUIT not ignored (inside, it runs as a background job)', async () => {
      const { text } = await run({ command: 'grep SigIgn /proc/self/status' });
      const ignored = BigInt(`0x${/^SigIgn:\s+([0-9a-f]+)$/m.exec(text)?.[1] ?? 'ffff'}`);
      // Bit n-1 stands for signal n: SIGINT is 2, SIGQUIT 3.
      expect(ignored & 0b110n).toBe(0n);
    });

    it('labels the activity and the completion in the house style', async () => {
      const { result, runCommand, parsed } = await run({ command: 'exit 1' });
      expect(runCommand.describeActivity({ command: 'npm test' })).toBe('Running `npm test`');
      // A label never passes for the whole command: it says how much it does not show.
      expect(runCommand.describeActivity({ command: `echo hi${' '.repeat(70_000)}; rm -rf ~` })).toBe(
        'Running `echo hi … (70,010 more characters)`',
      );
      expect(runCommand.describeActivity({ command: 'cd src\nnpm test' })).toBe(
        'Running `cd src … (9 more characters)`',
      );
      expect(runCommand.describeCompletedActivity?.(parsed, result)).toMatch(
        /^Command exited 1 after \d+\.\d s$/,
      );
    });

    it('is destructive and sequential, and its description says how commands are confined', () => {
      const runCommand = tool();
      expect(runCommand).toMatchObject({ isDestructive: true, executionMode: 'sequential' });
      expect(runCommand.description).toContain(
        sandbox === 'off'
          ? 'Commands are not sandboxed'
          : 'Commands run in a sandbox: your home is the only writable place',
      );
    });

    it('goes through the injected spawn, detached, with the scrubbed environment', async () => {
      const calls: Parameters<SpawnFunction>[] = [];
      const recording = ((...args: Parameters<SpawnFunction>) => {
        calls.push(args);
        return spawn(...args);
      }) as SpawnFunction;
      const { text } = await run(
        { command: 'echo via-spawn; env | cut -d= -f1 | sort' },
        { spawn: recording },
      );
      expect(text).toContain('via-spawn');
      expect(calls).toHaveLength(1);
      const [file, args, options] = calls[0] ?? [];
      // What the command's shell sees, but for the names bash sets itself.
      const names = text
        .split('\n')
        .slice(1)
        .filter((line) => /^[A-Z_]+$/.test(line) && !['PWD', 'SHLVL', '_'].includes(line));
      expect(names).toEqual(['HOME', 'LANG', 'PATH', 'SWITCHYARD_COMMAND_ID', 'TERM']);
      if (sandbox === 'off') {
        expect(file).toBe('bash');
        expect((args as string[])[0]).toBe('-lc');
        expect(options).toMatchObject({ cwd: home, detached: true });
        expect(Object.keys((options as { env: object }).env).sort()).toEqual(names);
      } else {
        // bubblewrap is started before its command is known: with no environment at all, in /,
        // its options (the command's environment among them) to come on descriptor 6.
        expect(file).toMatch(/\/bwrap$/);
        expect((args as string[]).slice(0, 4)).toEqual(['--args', '6', '--', 'bash']);
        expect((args as string[]).some((arg) => arg.includes('echo via-spawn'))).toBe(false);
        expect(options).toMatchObject({ cwd: '/', detached: true, env: {} });
      }
    });

    it('keeps the event loop turning while many commands spawn at once', async () => {
      // Each spawn blocks the loop (fork copies the page tables); make them costly.
      const blockMs = 60;
      let blockedInTotal = 0;
      const slowSpawn = ((...args: Parameters<SpawnFunction>) => {
        const start = performance.now();
        while (performance.now() < start + blockMs) {
          // A process with a large heap forks this slowly.
        }
        const child = spawn(...args);
        blockedInTotal += performance.now() - start;
        return child;
      }) as SpawnFunction;
      const runCommand = tool({ spawn: slowSpawn });
      let last = performance.now();
      let longestGap = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
      }, 5);
      try {
        const results = await Promise.all(
          Array.from({ length: 10 }, () => runCommand.execute({ command: 'true' }, createTestToolContext())),
        );
        expect(results.map((result) => result.details?.exitCode)).toEqual(Array(10).fill(0));
      } finally {
        clearInterval(ticker);
      }
      // Stacked, the ten spawns would hold the loop for all of their time at once; one at a time,
      // the longest pause is about one spawn (a tenth of it).
      expect(blockedInTotal).toBeGreaterThanOrEqual(10 * blockMs);
      expect(longestGap).toBeLessThan(blockedInTotal / 2);
    });

    it('keeps the output of a command that exits before the tool is ready to read it', async () => {
      // The command has exited by the time spawn returns: Node would discard unread output on exit.
      const lateSpawn = ((...args: Parameters<SpawnFunction>) => {
        const child = spawn(...args);
        const until = performance.now() + 500;
        while (performance.now() < until) {
          // The child prints and exits meanwhile.
        }
        return child;
      }) as SpawnFunction;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const { text } = await run({ command: 'echo early-output; exit 4' }, { spawn: lateSpawn });
        expect(text).toContain('early-output\n\nExit code 4');
      }
    });

    it('reports a command that cannot start as an error result', async () => {
      const failing = ((..._args: Parameters<SpawnFunction>) => {
        throw new Error('spawn refused');
      }) as unknown as SpawnFunction;
      const { result } = await run({ command: 'true' }, { spawn: failing });
      expect(result).toMatchObject({
        isError: true,
        content: 'The command could not be started: spawn refused',
      });
    });
  });

  describe('environment scrubbing', () => {
    it('passes only the allowlist, HOME as the agent home, and never a secret-looking name', async () => {
      const sourceEnv = {
        PATH: process.env.PATH,
        LANG: 'C.UTF-8',
        OPENAI_API_KEY: 'sk-parent-secret',
        SOME_OTHER: 'not-allowlisted',
        PROJECT_NAME: 'switchyard',
      };
      const { text } = await run({ command: 'env' }, { sourceEnv, env: ['PROJECT_NAME'] });
      expect(text).toContain(`HOME=${home}`);
      expect(text).toContain('PROJECT_NAME=switchyard');
      expect(text).not.toContain('sk-parent-secret');
      expect(text).not.toContain('OPENAI_API_KEY');
      expect(text).not.toContain('SOME_OTHER');
    });

    it('does not leak a secret set in the real parent environment', async () => {
      process.env.SWITCHYARD_TEST_SECRET_TOKEN = 'parent-token-value';
      try {
        const { text } = await run({ command: 'env' });
        expect(text).not.toContain('parent-token-value');
        expect(text).toMatch(/^PATH=/m);
      } finally {
        delete process.env.SWITCHYARD_TEST_SECRET_TOKEN;
      }
    });

    it('refuses a secret-looking name in the allowlist at creation, naming the field', () => {
      expect(() => tool({ env: ['PROJECT_NAME', 'GITHUB_TOKEN'] })).toThrow(
        /env\[1\]: GITHUB_TOKEN looks like a secret/,
      );
      expect(() => tool({ env: ['HOME'] })).toThrow(/env\[0\]: HOME is set by the computer tools/);
    });

    it('keeps the prepended PATH entries first even though the login profile resets PATH', async () => {
      const { text } = await run({ command: 'echo "$PATH"' }, { pathPrepend: ['/opt/switchyard-test/bin'] });
      expect(text.split('\n')[0]?.startsWith('/opt/switchyard-test/bin:')).toBe(true);
    });
  });

  describe('output capping', () => {
    it('keeps head and tail of long output, says what was cut and saves the full output in the home', async () => {
      const { result, text } = await run({ command: 'seq 1 20000' });
      expect(text.startsWith('1\n2\n3\n')).toBe(true);
      expect(text).toContain('20000\n\nExit code 0');
      expect(text).toMatch(
        /\[\.\.\. [\d,]+ bytes cut \(lines [\d,]+ to [\d,]+ of 20,000\); the full output was saved to \.switchyard\/command-output\/.+\.log \.\.\.\]/,
      );
      expect(text).not.toContain('\n10000\n');
      expect(Buffer.byteLength(text)).toBeLessThan(16 * 1024 + 400);
      const saved = result.details?.savedOutputPath;
      expect(saved).toBeDefined();
      const full = readFileSync(path.join(home, saved ?? ''), 'utf8');
      expect(full.split('\n').length).toBe(20001);
      expect(full).toContain('\n10000\n');
    });

    it('keeps short output whole', async () => {
      const { result, text } = await run({ command: 'seq 1 100' });
      expect(text).toContain('\n50\n');
      expect(result.details?.truncated).toBe(false);
    });

    it('decodes output as UTF-8 without splitting characters at the cut', async () => {
      writeFileSync(path.join(home, 'gen.sh'), 'for i in $(seq 1 3000); do printf "é€😀"; done; echo');
      const { text } = await run({ command: 'bash gen.sh' }, { limits: { maxOutputBytes: 1001 } });
      expect(text).not.toContain('\uFFFD');
    });
  });

  describe('stopping the process tree', () => {
    it('a timeout stops the whole tree, including a grandchild that ignores SIGTERM', async () => {
      const stubborn = token();
      const plain = token();
      const script = [
        `bash -c 'trap "" TERM; while :; do sleep 0.05; done' ${stubborn} &`,
        `sleep ${plain} &`,
        'wait',
      ].join('\n');
      const { result, text } = await run({ command: script, timeout_ms: 2000 });
      expect(result.isError).toBe(true);
      expect(result.details?.timedOut).toBe(true);
      expect(result.details?.stoppedProcesses).toBeGreaterThanOrEqual(2);
      expect(text).toContain('Timed out after 2.0 s');
      expect(processesWith(stubborn)).toEqual([]);
      expect(processesWith(plain)).toEqual([]);
    });

    it('stops a setsid escapee that ignores SIGTERM', async () => {
      const escapee = token();
      const script = `setsid bash -c 'trap "" TERM; while :; do sleep 0.05; done' ${escapee} &\nsleep 30`;
      const { result } = await run({ command: script, timeout_ms: 2000 });
      expect(result.details?.timedOut).toBe(true);
      expect(processesWith(escapee)).toEqual([]);
    });

    it('stops a setsid escapee whose parent already exited', async () => {
      // The intermediate shell exits at once, so the escapee is re-parented before any scan sees it.
      const escapee = token();
      const script = `bash -c "setsid sleep ${escapee} &"\nsleep 30`;
      const { result } = await run({ command: script, timeout_ms: 2000 });
      expect(result.details?.timedOut).toBe(true);
      expect(processesWith(escapee)).toEqual([]);
    });

    it('abort mid-command stops the tree and returns promptly', async () => {
      const controller = new AbortController();
      const stubborn = token();
      const running = run(
        {
          command: `bash -c 'trap "" TERM; while :; do sleep 0.05; done' ${stubborn} & echo started > started; wait`,
        },
        {},
        controller.signal,
      );
      // The command writes `started` after starting the stubborn process (the home is shared).
      for (let attempt = 0; attempt < 400 && !existsSync(path.join(home, 'started')); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(existsSync(path.join(home, 'started'))).toBe(true);
      const aborted = performance.now();
      controller.abort();
      const { result, runCommand, parsed } = await running;
      // Promptly: the 300 ms grace, not the 60 s timeout.
      expect(performance.now() - aborted).toBeLessThan(10_000);
      expect(result.isError).toBe(true);
      expect(result.details?.aborted).toBe(true);
      expect(runCommand.describeCompletedActivity?.(parsed, result)).toMatch(/^Command stopped after/);
      expect(processesWith(stubborn)).toEqual([]);
    });

    it('stops background processes the command leaves running when it exits', async () => {
      const background = token();
      const { result, text } = await run({ command: `sleep ${background} & echo started` });
      expect(result.details?.exitCode).toBe(0);
      expect(result.details?.stoppedProcesses).toBe(1);
      expect(text).toContain('Stopped 1 background process');
      expect(processesWith(background)).toEqual([]);
    });

    it('stops a command whose turn was aborted while it was starting', async () => {
      const controller = new AbortController();
      const abortingSpawn = ((...args: Parameters<SpawnFunction>) => {
        const child = spawn(...args);
        controller.abort();
        return child;
      }) as SpawnFunction;
      const started = performance.now();
      const { result } = await run({ command: 'sleep 30' }, { spawn: abortingSpawn }, controller.signal);
      expect(result.details).toMatchObject({ aborted: true, timedOut: false });
      // Promptly: the grace period, not the command's 30 s or the 60 s timeout.
      expect(performance.now() - started).toBeLessThan(15_000);
    });

    it('does not start a command when the turn is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const { result } = await run({ command: 'echo started > started' }, {}, controller.signal);
      expect(result).toMatchObject({
        isError: true,
        content: 'The command was not started: the turn was aborted.',
      });
      expect(() => readFileSync(path.join(home, 'started'))).toThrow(/ENOENT/);
    });

    it('refuses a command holding a NUL character and runs none of it', async () => {
      // In the sandbox's NUL-separated options, what follows one would be read as options of its own.
      const { result } = await run({ command: 'echo ran > ran\0--bind\0/\0/host\0' });
      expect(result).toMatchObject({
        isError: true,
        content: 'The command contains a NUL character (\\0), which no shell command can hold: remove it.',
      });
      expect(existsSync(path.join(home, 'ran'))).toBe(false);
    });

    it('lowers a timeout above the maximum and says so', async () => {
      const { text, result } = await run(
        { command: 'true', timeout_ms: 10_000 },
        { limits: { maxTimeoutMs: 5_000, defaultTimeoutMs: 1_000 } },
      );
      expect(text).toContain('timeout_ms 10000 exceeds the maximum 5000; 5000 was used.');
      expect(result.details?.timeoutMs).toBe(5_000);
    });
  });
});

describe('run_command without the sandbox: host process tracking', () => {
  async function run(params: RunCommandParams, signal?: AbortSignal) {
    const runCommand = createRunCommandTool(
      resolveComputerSettings({ home, sandbox: 'off', limits: { killGraceMs: 300 } }),
    );
    const result = await runCommand.execute(
      parseParams(runCommand, params),
      createTestToolContext({ signal }),
    );
    return { result, text: typeof result.content === 'string' ? result.content : '' };
  }

  it('signals each tracked pid of the tree, which is gone afterwards', async () => {
    const script = [
      'bash -c \'trap "" TERM; echo $$ >> pids; while :; do sleep 0.05; done\' &',
      'sleep 30 & echo $! >> pids',
      'echo $$ >> pids',
      'wait',
    ].join('\n');
    const { result } = await run({ command: script, timeout_ms: 2000 });
    const pids = pidsIn('pids');
    expect(pids).toHaveLength(3);
    expect(result.details?.timedOut).toBe(true);
    for (const pid of pids) expect(isProcessAlive(pid), `pid ${pid}`).toBe(false);
  });

  it('finds a setsid escapee by its environment marker after an abort', async () => {
    const controller = new AbortController();
    const running = run(
      {
        command:
          'bash -c "setsid bash -c \'trap \\"\\" TERM; echo \\$\\$ >> pids; exec sleep 30\' &"; echo $$ >> pids; wait; sleep 30',
      },
      controller.signal,
    );
    await waitForFile('pids', 2);
    controller.abort();
    const { result } = await running;
    expect(result.details?.aborted).toBe(true);
    for (const pid of pidsIn('pids')) expect(isProcessAlive(pid), `pid ${pid}`).toBe(false);
  });

  it('can be read through /proc by a command: the gap the sandbox closes', async () => {
    // Without the sandbox the worker's processes are visible: the command sees its own parent.
    const { text } = await run({ command: 'cat /proc/$PPID/cmdline | tr "\\0" " "' });
    expect(text).toContain('node');
  });

  it('runs the same commands the sandbox runs, unconfined: writes outside the home succeed', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'switchyard-outside-'));
    try {
      const { result } = await run({ command: `echo written > ${outside}/escape` });
      expect(result.details?.exitCode).toBe(0);
      expect(readFileSync(path.join(outside, 'escape'), 'utf8')).toBe('written\n');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
