import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolExecutionContext } from '@switchyard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ComputerToolsContext, SpawnFunction } from '../computer-tools-context';
import { resolveComputerSettings } from '../resolve-computer-settings';
import { isProcessAlive } from './process-tree';
import { createRunCommandTool, type RunCommandParams } from './run-command-tool';

let home: string;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'switchyard-run-'));
});

afterEach(() => rmSync(home, { recursive: true, force: true }));

function tool(overrides: Partial<ComputerToolsContext> = {}) {
  return createRunCommandTool(
    resolveComputerSettings({ home, limits: { killGraceMs: 300, ...overrides.limits }, ...overrides }),
  );
}

function context(signal = new AbortController().signal): ToolExecutionContext {
  return { signal, toolCallId: 'call-1', reportProgress: () => undefined };
}

async function run(
  params: RunCommandParams,
  overrides: Partial<ComputerToolsContext> = {},
  signal?: AbortSignal,
) {
  const runCommand = tool(overrides);
  const parsed = runCommand.schema.parse(params);
  const result = await runCommand.execute(parsed, context(signal));
  return { result, text: typeof result.content === 'string' ? result.content : '', runCommand, parsed };
}

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

describe('running commands', () => {
  it('runs in the home with bash, interleaving stdout and stderr in order', async () => {
    const { result, text } = await run({ command: 'pwd; echo out1; echo err1 >&2; echo out2; exit 3' });
    expect(text).toContain(`${home}\nout1\nerr1\nout2`);
    expect(text).toContain('Exit code 3 after');
    expect(result.isError).toBeUndefined();
    expect(result.details).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
  });

  it('labels the activity and the completion in the house style', async () => {
    const { result, runCommand, parsed } = await run({ command: 'exit 1' });
    expect(runCommand.describeActivity({ command: 'npm test' })).toBe('Running `npm test`');
    expect(runCommand.describeCompletedActivity?.(parsed, result)).toMatch(
      /^Command exited 1 after \d+\.\d s$/,
    );
  });

  it('is destructive and sequential', () => {
    const runCommand = tool();
    expect(runCommand.isDestructive).toBe(true);
    expect(runCommand.executionMode).toBe('sequential');
  });

  it('goes through the injected spawn with bash -lc, detached', async () => {
    const calls: unknown[][] = [];
    const recording = ((...args: Parameters<SpawnFunction>) => {
      calls.push(args);
      return spawn(...args);
    }) as SpawnFunction;
    const { text } = await run({ command: 'echo via-spawn' }, { spawn: recording });
    expect(text).toContain('via-spawn');
    expect(calls[0]?.[0]).toBe('bash');
    expect((calls[0]?.[1] as string[])[0]).toBe('-lc');
    expect(calls[0]?.[2]).toMatchObject({ cwd: home, detached: true });
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
});

describe('process tree termination', () => {
  it('a timeout kills the whole tree, including a grandchild that ignores SIGTERM', async () => {
    const script = [
      'bash -c \'trap "" TERM; echo $$ >> pids; while :; do sleep 0.05; done\' &',
      'sleep 30 & echo $! >> pids',
      'echo $$ >> pids',
      'wait',
    ].join('\n');
    const { result, text } = await run({ command: script, timeout_ms: 3000 });
    const pids = pidsIn('pids');
    expect(pids).toHaveLength(3);
    expect(result.isError).toBe(true);
    expect(result.details?.timedOut).toBe(true);
    expect(text).toContain('Timed out after 3.0 s');
    for (const pid of pids) expect(isProcessAlive(pid), `pid ${pid}`).toBe(false);
  });

  it('kills a setsid escapee too', async () => {
    const script = [
      'setsid bash -c \'trap "" TERM; echo $$ >> pids; while :; do sleep 0.05; done\' &',
      'sleep 30',
    ].join('\n');
    const { result } = await run({ command: script, timeout_ms: 2500 });
    const pids = pidsIn('pids');
    expect(pids).toHaveLength(1);
    expect(result.details?.timedOut).toBe(true);
    expect(isProcessAlive(pids[0] ?? 0)).toBe(false);
  });

  it('kills a setsid escapee whose parent already exited', async () => {
    // The intermediate shell exits at once, so the escapee is re-parented before any scan sees it.
    const script = ['bash -c "setsid bash -c \'echo \\$\\$ >> pids; exec sleep 30\' & "', 'sleep 30'].join(
      '\n',
    );
    const { result } = await run({ command: script, timeout_ms: 2500 });
    const pids = pidsIn('pids');
    expect(pids).toHaveLength(1);
    expect(result.details?.timedOut).toBe(true);
    expect(isProcessAlive(pids[0] ?? 0)).toBe(false);
  });

  it('abort mid-command kills the tree and returns promptly', async () => {
    const controller = new AbortController();
    const running = run(
      {
        command:
          'bash -c \'trap "" TERM; echo $$ >> pids; while :; do sleep 0.05; done\' & echo $$ >> pids; wait',
      },
      {},
      controller.signal,
    );
    await waitForFile('pids', 2);
    controller.abort();
    const { result, runCommand, parsed } = await running;
    expect(result.isError).toBe(true);
    expect(result.details?.aborted).toBe(true);
    expect(runCommand.describeCompletedActivity?.(parsed, result)).toMatch(/^Command stopped after/);
    for (const pid of pidsIn('pids')) expect(isProcessAlive(pid)).toBe(false);
  });

  it('stops background processes the command leaves running when it exits', async () => {
    const { result, text } = await run({ command: 'sleep 30 & echo $! > pids; echo started' });
    expect(result.details?.exitCode).toBe(0);
    expect(result.details?.stoppedProcesses).toBe(1);
    expect(text).toContain('Stopped 1 background process');
    expect(isProcessAlive(pidsIn('pids')[0] ?? 0)).toBe(false);
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

  it('lowers a timeout above the maximum and says so', async () => {
    const { text, result } = await run(
      { command: 'true', timeout_ms: 10_000 },
      { limits: { maxTimeoutMs: 5_000, defaultTimeoutMs: 1_000 } },
    );
    expect(text).toContain('timeout_ms 10000 exceeds the maximum 5000; 5000 was used.');
    expect(result.details?.timeoutMs).toBe(5_000);
  });
});

describe('binary-safe output', () => {
  it('decodes output as UTF-8 without splitting characters at the cut', async () => {
    writeFileSync(path.join(home, 'gen.sh'), 'for i in $(seq 1 3000); do printf "é€😀"; done; echo');
    const { text } = await run({ command: 'bash gen.sh' }, { limits: { maxOutputBytes: 1001 } });
    expect(text).not.toContain('\uFFFD');
  });
});
