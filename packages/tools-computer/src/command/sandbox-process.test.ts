import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestToolContext } from '@switchyard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseParams } from '../__fixtures__/tool-harness';
import type { ComputerToolsContext } from '../computer-tools-context';
import { createComputerTools } from '../create-computer-tools';
import { findBubblewrap } from './bubblewrap';
import type { RunCommandDetails } from './command-result';
import { pidsCgroupParent } from './process-cgroup';
import { sandboxOptions } from './sandbox-arguments';
import { encodeOptions, parkedSandboxes, takeSandboxProcess } from './sandbox-process';
import { privilegeBitFilter } from './seccomp-filter';

const runFile = promisify(execFile);
const fixture = fileURLToPath(new URL('../__fixtures__/run-command-process.ts', import.meta.url));

// Outside /tmp: the sandbox's private /tmp would hide a home under the host's /tmp anyway.
const OUTSIDE_TMP = existsSync('/var/tmp') ? '/var/tmp' : '/tmp';

let home: string;

beforeEach(() => {
  home = mkdtempSync(path.join(OUTSIDE_TMP, 'switchyard-parked-'));
});

afterEach(() => rmSync(home, { recursive: true, force: true }));

function tools(overrides: Partial<ComputerToolsContext> = {}) {
  const runCommand = createComputerTools({
    home,
    sandbox: 'required',
    ...overrides,
    limits: { killGraceMs: 300, ...overrides.limits },
  })[0];
  if (runCommand === undefined) throw new Error('no run_command');
  return (command: string) =>
    runCommand.execute(parseParams(runCommand, { command }), createTestToolContext()) as Promise<{
      content: unknown;
      isError?: boolean;
      details?: RunCommandDetails;
    }>;
}

/** The one sandbox parked now (this file's process parks one bubblewrap binary's). */
async function theParked(): Promise<{ pid: number; cgroup: string | undefined }> {
  const parked = await parkedSandboxes();
  expect(parked).toHaveLength(1);
  return parked[0] as { pid: number; cgroup: string | undefined };
}

async function until(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The state letter of `pid` in `/proc/<pid>/stat` (`S`, `T`, `Z`, ...), undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a live process (not a zombie) whose command line is still bubblewrap's. */
function isBubblewrap(pid: number): boolean {
  const state = processState(pid);
  if (state === undefined || state === 'Z') return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('bwrap');
  } catch {
    return false;
  }
}

const asRoot = process.getuid?.() === 0;

describe('a bubblewrap parked ahead of the next command', () => {
  // First in this file: nothing has run in this process yet.
  it('is parked only once a command ran: without an environment, in /, and for a root worker in a pids cgroup allowing it alone', async () => {
    const run = tools();
    expect(await parkedSandboxes()).toEqual([]);
    const result = await run('echo first');
    expect(result.details?.sandboxed).toBe(true);
    expect(result.content).toContain('first');
    const { pid, cgroup } = await theParked();
    expect(isBubblewrap(pid)).toBe(true);
    expect(readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').slice(1, 5)).toEqual([
      '--args',
      '6',
      '--',
      'bash',
    ]);
    expect(readFileSync(`/proc/${pid}/environ`, 'latin1')).toBe('');
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe('/');
    // It has forked nothing: it waits for its options.
    expect(readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim()).toBe('');
    const cgroupParent = await pidsCgroupParent();
    if (asRoot && cgroupParent !== undefined) {
      expect(cgroup).toBeDefined();
      expect(path.dirname(cgroup as string)).toBe(path.resolve(cgroupParent));
      expect(readFileSync(path.join(cgroup as string, 'pids.max'), 'utf8').trim()).toBe('1');
      expect(readFileSync(path.join(cgroup as string, 'cgroup.procs'), 'utf8').trim()).toBe(String(pid));
    } else {
      expect(cgroup).toBeUndefined();
    }
  });

  it('runs the next command, and another is parked for the one after', async () => {
    const run = tools();
    await run('true');
    const first = await theParked();
    const running = run('sleep 1; echo second');
    // The parked bubblewrap forks the sandbox's init: it took the command.
    await until(
      () => readFileSync(`/proc/${first.pid}/task/${first.pid}/children`, 'latin1').trim() !== '',
      'the parked bubblewrap starts the sandbox',
    );
    const result = await running;
    expect(result.content).toContain('second');
    expect(result.details?.exitCode).toBe(0);
    const next = await theParked();
    expect(next.pid).not.toBe(first.pid);
    expect(isBubblewrap(first.pid)).toBe(false);
    if (first.cgroup !== undefined)
      await until(() => !existsSync(first.cgroup as string), 'its cgroup is removed');
  });

  it('serves commands started together: one takes the parked bubblewrap, the others start their own, one is parked after', async () => {
    const run = tools();
    await run('true');
    const results = await Promise.all([1, 2, 3, 4].map((index) => run(`echo together-${index}`)));
    for (const [index, result] of results.entries()) {
      expect(result.details?.sandboxed).toBe(true);
      expect(result.content).toContain(`together-${index + 1}`);
    }
    await theParked();
  });

  it.each([
    ['killed', 'SIGKILL'],
    ['stopped', 'SIGSTOP'],
  ] as const)('is never used once %s: the command gets a new one', async (_, signal) => {
    const run = tools();
    await run('true');
    const parked = await theParked();
    process.kill(parked.pid, signal);
    // Once the kernel shows it (a signal is acted on when its target next runs).
    await until(
      () => {
        const state = processState(parked.pid);
        return state === undefined || state === (signal === 'SIGKILL' ? 'Z' : 'T');
      },
      `the parked bubblewrap is ${signal === 'SIGKILL' ? 'dead' : 'stopped'}`,
    );
    const result = await run('echo after');
    expect(result.isError).not.toBe(true);
    expect(result.details?.sandboxed).toBe(true);
    expect(result.content).toContain('after');
    const next = await theParked();
    expect(next.pid).not.toBe(parked.pid);
    await until(() => !isBubblewrap(parked.pid), 'the unused one is gone');
    if (parked.cgroup !== undefined)
      await until(() => !existsSync(parked.cgroup as string), 'its cgroup is removed');
  });

  it.each<[string, Partial<ComputerToolsContext>]>([
    ['parked ahead', {}],
    ['started when the command starts (tools given their own spawn)', { spawn }],
  ])('holds a fork bomb that runs at once in a bubblewrap %s', async (_, overrides) => {
    const run = tools({ ...overrides, limits: { maxProcesses: 32 } });
    // The first command parks one; the second takes it (or starts its own).
    await run('true');
    const parked = overrides.spawn === undefined ? await theParked() : undefined;
    let refusedInCgroup = 0;
    const watching = setInterval(() => {
      if (parked?.cgroup === undefined) return;
      try {
        const events = readFileSync(path.join(parked.cgroup, 'pids.events'), 'utf8');
        refusedInCgroup = Math.max(refusedInCgroup, Number(/^max (\d+)$/m.exec(events)?.[1] ?? 0));
      } catch {
        // Removed once the command ended.
      }
    }, 5);
    try {
      const result = await run('bomb() { bomb | bomb & }; bomb; sleep 10');
      expect(result.details?.limitExceeded?.limit).toBe('processes');
      // The kernel refused the forks past the limit (RLIMIT_NPROC, or a root worker's cgroup).
      expect(result.content).toContain('Resource temporarily unavailable');
    } finally {
      clearInterval(watching);
    }
    if (asRoot && parked?.cgroup !== undefined) expect(refusedInCgroup).toBeGreaterThan(0);
  });

  it('ends with the worker: a worker that ran a command exits on its own, and leaves neither it nor its cgroup', async () => {
    const { stdout } = await runFile(
      process.execPath,
      ['--import', 'tsx', fixture, JSON.stringify({ home, sandbox: 'required', command: 'echo from-child' })],
      { cwd: path.dirname(fixture), env: { PATH: process.env.PATH }, timeout: 20_000 },
    );
    const output = JSON.parse(stdout) as {
      content: string;
      parked: { pid: number; cgroup: string | undefined }[];
    };
    expect(output.content).toContain('from-child');
    expect(output.parked).toHaveLength(1);
    const [parked] = output.parked;
    await until(() => !isBubblewrap(parked?.pid ?? 0), 'the parked bubblewrap is gone');
    if (parked?.cgroup !== undefined) expect(existsSync(parked.cgroup)).toBe(false);
  });
});

describe('the options a parked bubblewrap reads', () => {
  it('run no command when they did not all arrive (the init checks their last)', async () => {
    const bwrap = findBubblewrap(process.env.PATH);
    const filter = privilegeBitFilter();
    if (bwrap === undefined || filter === undefined)
      throw new Error('this test needs bubblewrap on x64 or arm64');
    const options = await sandboxOptions({
      home,
      hiddenPaths: [],
      exposedPaths: [],
      readOnlyPaths: [],
      namespaces: { network: 'none', userNamespace: true, disableUserNamespaces: true },
      graceMs: 0,
      script: 'echo ran > ran',
      environment: { PATH: '/usr/bin:/bin' },
      limits: { maxProcesses: 64, maxMemoryBytes: 64 * 1024 * 1024, maxOpenFiles: 256, maxCpuSeconds: 10 },
    });
    expect(options.slice(-3)).toEqual(['--setenv', 'SWITCHYARD_INIT_COMPLETE', '1']);
    const sandbox = await takeSandboxProcess(spawn, bwrap, false);
    let output = '';
    sandbox.output.listen((bytes) => {
      output += bytes.toString();
      return undefined;
    });
    await sandbox.launch(options.slice(0, -3), filter, 64);
    const { code } = await sandbox.exited;
    await sandbox.output.closed;
    await sandbox.cgroup?.remove();
    expect(code).toBe(125);
    expect(output).toContain('switchyard-sandbox-init: its values did not all arrive');
    expect(existsSync(path.join(home, 'ran'))).toBe(false);
  });

  it('never carry a NUL inside one: it would end it early and start an option of its own', () => {
    expect(encodeOptions(['--setenv', 'A', 'b'])).toEqual(Buffer.from('--setenv\0A\0b\0'));
    expect(() => encodeOptions(['--setenv', 'SCRIPT', 'true\0--bind\0/\0/host'])).toThrow(/NUL/);
  });
});
