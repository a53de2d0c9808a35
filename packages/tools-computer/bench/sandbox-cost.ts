// What the sandbox costs a command to start, and what each of its parts adds: bubblewrap started
// with one argument list after another, from the layout before issue 38 to the whole of today's,
// interleaved round by round so that every variant sees the same load on a shared machine. Each
// runs `true` through the login shell, as run_command does, and is timed from spawn to exit; the
// last ones, as run_command starts a sandbox, from taking a bubblewrap to its exit.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { percentile } from '@switchyard/bench-kit';
import { findBubblewrap } from '../src/command/bubblewrap';
import { hostViewArguments } from '../src/command/host-view';
import { CommandCgroup, pidsCgroupParent } from '../src/command/process-cgroup';
import { namespaceArguments, sandboxOptions } from '../src/command/sandbox-arguments';
import { SANDBOX_COMMAND } from '../src/command/sandbox-init';
import { parkSandboxProcess, type SandboxProcess, takeSandboxProcess } from '../src/command/sandbox-process';
import { privilegeBitFilter } from '../src/command/seccomp-filter';

/** One variant's median over the rounds, in ms. */
export interface SandboxCostRow {
  name: string;
  medianMs: number;
  /** Not a command's start (a part of one, timed alone): nothing to compare with the layout before issue 38. */
  part?: boolean;
  /**
   * The median, over the rounds, of this variant's time minus the layout before issue 38's in the
   * same round: on a loaded machine steadier than the difference of the two medians.
   */
  medianOverBeforeMs?: number;
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

// The init before issue 38 (POSIX sh: no descriptors closed, no limits), kept here to measure against.
const PREVIOUS_INIT = `exec 4>&-
bash -lc "$2" </dev/null 3>&-
status=$?
exit "$status"
`;

const LIMITS = { maxProcesses: 512, maxMemoryBytes: 1024 ** 3, maxOpenFiles: 4096, maxCpuSeconds: 600 };
const NAMESPACES = { network: 'none', userNamespace: true, disableUserNamespaces: true } as const;

function previousArguments(
  home: string,
  view: readonly string[],
  extra: readonly string[],
  seccomp: boolean,
) {
  return [
    ...view,
    '--dev',
    '/dev',
    ...extra,
    '--proc',
    '/proc',
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    ...(extra.length > 0 ? ['--size', String(LIMITS.maxMemoryBytes)] : []),
    '--tmpfs',
    '/tmp',
    '--bind',
    home,
    home,
    ...(extra.length > 0 ? ['--remount-ro', '/'] : []),
    ...namespaceArguments(NAMESPACES),
    ...(seccomp ? ['--seccomp', '5'] : []),
    '--as-pid-1',
    '--chdir',
    home,
    '--',
    'sh',
    '-c',
    PREVIOUS_INIT,
    'init',
    '0',
    'true',
  ];
}

/** Spawns `file args` with the command's stdio (pipes, the seccomp filter on fd 5) and resolves on exit. */
function timeSpawn(
  file: string,
  args: readonly string[],
  home: string,
  filter: Buffer | undefined,
): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: home,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout?.resume();
    child.stderr?.resume();
    const seccomp = (child.stdio as unknown[])[5] as NodeJS.WritableStream | null;
    seccomp?.on('error', () => undefined);
    seccomp?.end(filter ?? Buffer.alloc(0));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${path.basename(file)} exited ${code}`));
      else resolve(performance.now() - started);
    });
  });
}

/**
 * Hands `sandbox` its options, as run_command does (then `afterLaunch`: parking the next), and
 * resolves on its exit with the time since `started`.
 */
async function timeLaunch(
  started: number,
  sandbox: SandboxProcess,
  launch: { options: readonly string[]; filter: Buffer; afterLaunch?: () => void },
): Promise<number> {
  sandbox.child.stdout?.resume();
  sandbox.child.stderr?.resume();
  await sandbox.launch(launch.options, launch.filter, LIMITS.maxProcesses);
  launch.afterLaunch?.();
  const { code, error } = await sandbox.exited;
  await sandbox.cgroup?.remove();
  if (code !== 0) throw new Error(`bwrap exited ${code}${error === undefined ? '' : `: ${error.message}`}`);
  return performance.now() - started;
}

/** Moves a sleeping process into a new pids cgroup: the time of the write to `cgroup.procs` alone. */
async function timeCgroupMove(cgroupParent: string): Promise<number> {
  const cgroup = await CommandCgroup.create(cgroupParent, 1);
  const sleeper = spawn('sleep', ['10'], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    await cgroup.join(sleeper.pid as number);
    return performance.now() - started;
  } finally {
    sleeper.kill('SIGKILL');
    await new Promise((resolve) => sleeper.once('exit', resolve));
    await cgroup.remove();
  }
}

/**
 * Runs every variant `rounds` times, interleaved, after 5 warm-up rounds; resolves with each
 * variant's median.
 */
export async function measureSandboxCost(home: string, rounds = 50): Promise<SandboxCostRow[]> {
  const bwrap = findBubblewrap(process.env.PATH);
  const filter = privilegeBitFilter();
  if (bwrap === undefined || filter === undefined)
    throw new Error('the sandbox cost needs bubblewrap on x64 or arm64');
  const view = hostViewArguments();
  const sized = ['--size', String(LIMITS.maxMemoryBytes), '--tmpfs', '/dev/shm', '--remount-ro', '/dev'];
  const options = await sandboxOptions({
    home,
    hiddenPaths: [],
    exposedPaths: [path.dirname(process.execPath)],
    readOnlyPaths: [],
    namespaces: NAMESPACES,
    graceMs: 0,
    script: 'true',
    environment: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home },
    limits: LIMITS,
  });
  const today = [...options, ...SANDBOX_COMMAND];
  const cgroupParent = await pidsCgroupParent();
  type Variant = { name: string; run: () => Promise<number>; part?: boolean };
  const variants: Variant[] = [
    { name: 'no sandbox: bash -lc true', run: () => timeSpawn('bash', ['-lc', 'true'], home, undefined) },
    {
      name: 'before issue 38: the host read-only (--ro-bind / /), sh init',
      run: () =>
        timeSpawn(bwrap, previousArguments(home, ['--ro-bind', '/', '/'], [], false), home, undefined),
    },
    {
      name: '+ the allowlist view (system folders, minimal /etc) in place of /',
      run: () => timeSpawn(bwrap, previousArguments(home, view, [], false), home, undefined),
    },
    {
      name: '+ sized /tmp and /dev/shm, /dev and / read-only',
      run: () => timeSpawn(bwrap, previousArguments(home, view, sized, false), home, undefined),
    },
    {
      name: '+ the seccomp filter (no setuid/setgid bits)',
      run: () => timeSpawn(bwrap, previousArguments(home, view, sized, true), home, filter),
    },
    {
      name: "+ bash init: descriptors closed, rlimits set (today's arguments)",
      run: () => timeSpawn(bwrap, today, home, filter),
    },
  ];
  if (cgroupParent !== undefined) {
    variants.push({
      name: 'moving a process into a new pids cgroup (cgroup.procs), alone: what a parked bwrap pays ahead',
      part: true,
      run: () => timeCgroupMove(cgroupParent),
    });
    variants.push({
      name: '+ a pids cgroup per command (root), joined by a sh that then execs bwrap (issue 38)',
      run: async () => {
        const cgroup = await CommandCgroup.create(cgroupParent, LIMITS.maxProcesses + 1);
        try {
          return await timeSpawn(
            '/bin/sh',
            ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.processesFile, bwrap, ...today],
            home,
            filter,
          );
        } finally {
          await cgroup.remove();
        }
      },
    });
  }
  const cgroupNote = cgroupParent === undefined ? '' : ', in its pids cgroup';
  variants.push(
    {
      name: `bwrap started when its command starts${cgroupNote}, options on a pipe`,
      run: async () => {
        const started = performance.now();
        return timeLaunch(started, await takeSandboxProcess(spawn, bwrap, false), { options, filter });
      },
    },
    {
      name: `bwrap parked ahead${cgroupNote}, options on a pipe (run_command)`,
      run: async () => {
        const started = performance.now();
        return timeLaunch(started, await takeSandboxProcess(spawn, bwrap, true), {
          options,
          filter,
          afterLaunch: () => parkSandboxProcess(spawn, bwrap),
        });
      },
    },
  );
  const times = variants.map(() => [] as number[]);
  for (let round = 0; round < rounds + 5; round += 1) {
    for (const [index, variant] of variants.entries()) {
      const elapsed = await variant.run();
      if (round >= 5) times[index]?.push(elapsed);
    }
  }
  const before = times[variants.findIndex((variant) => variant.name.startsWith('before issue 38'))] ?? [];
  return variants.map((variant, index) => {
    const own = times[index] ?? [];
    return {
      name: variant.name,
      medianMs: median(own),
      ...(variant.part === true
        ? { part: true }
        : { medianOverBeforeMs: median(own.map((time, round) => time - (before[round] ?? Number.NaN))) }),
    };
  });
}
