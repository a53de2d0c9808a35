import type { ChildProcess, StdioOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ComputerSettings } from '../resolve-computer-settings';
import { type BubblewrapProbe, namespacesOf } from './bubblewrap';
import type { CommandRun } from './command-run';
import { bundledToolDirectories } from './default-path-prepend';
import { startHostCommand } from './host-command';
import { CommandCgroup, pidsCgroupParent } from './process-cgroup';
import { sandboxArguments } from './sandbox-arguments';
import { SECCOMP_FD } from './sandbox-init';
import type { CommandTotals } from './sandbox-monitor';
import { startSandboxedCommand } from './sandboxed-command';
import { privilegeBitFilter } from './seccomp-filter';

let spawnTurns: Promise<void> = Promise.resolve();

/**
 * Resolves when it is this command's turn to spawn. `spawn` blocks the event loop until the child
 * has exec'd (Node forks, and forking copies the page tables: measured here 6 ms at 40 MB RSS,
 * 35 ms at 850 MB, as a daemon with PGlite has), so commands starting together spawn one per
 * event-loop turn instead of stacking those pauses into one.
 */
function spawnTurn(): Promise<void> {
  const turn = spawnTurns.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  spawnTurns = turn;
  return turn;
}

/** What starting one command needs besides the settings. */
export interface CommandStart {
  /** The `bash -lc` script. */
  readonly script: string;
  /** The command's allowlisted environment. */
  readonly environment: Record<string, string>;
  /** The per-call marker in that environment. */
  readonly commandId: string;
  /** The probe that found a working sandbox, or undefined to run unconfined. */
  readonly probe: BubblewrapProbe | undefined;
  /** The totals a sandboxed command is held to (undefined for an unconfined one). */
  readonly totals: CommandTotals | undefined;
  /** Receives every chunk of output, in order. */
  readonly onOutput: (chunk: Buffer) => void;
}

/** The folders a command's PATH needs inside the sandbox: the tools' installs and the running node's. */
function exposedPaths(settings: ComputerSettings): string[] {
  const nodeBin = path.dirname(process.execPath);
  // npm and npx beside a node installed outside /usr (nvm and the like) live in ../lib/node_modules.
  const nodeModules = path.join(path.dirname(nodeBin), 'lib', 'node_modules');
  return [
    ...settings.pathPrepend,
    nodeBin,
    ...(existsSync(nodeModules) ? [nodeModules] : []),
    ...bundledToolDirectories(),
  ];
}

/**
 * A root worker's command joins a `pids` cgroup of its own before bubblewrap forks: a POSIX shell
 * writes its pid to the cgroup and becomes bwrap (`exec`), so everything the sandbox starts is in it.
 */
function joinCgroup(cgroup: CommandCgroup, bwrapPath: string, args: string[]): [string, string[]] {
  return ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.processesFile, bwrapPath, ...args]];
}

/**
 * Spawns the command: `bash -lc` directly, or inside bubblewrap when `start.probe` found a sandbox
 * (its seccomp filter written to fd 5, its init's reports read on fds 3 and 4, and for a root
 * worker its own `pids` cgroup, removed when the command ends).
 *
 * Contract: throws when the sandbox cannot be prepared (a root worker's cgroup that cannot be made);
 * a spawn that fails comes back as the run's `shellEnded` error.
 */
export async function startCommand(settings: ComputerSettings, start: CommandStart): Promise<CommandRun> {
  const base = { cwd: settings.home.root, env: start.environment, detached: true };
  // Listen at once: when the child exits, Node resumes (and so discards) whatever output nothing
  // is reading yet.
  const listen = (child: ChildProcess) => {
    child.stdout?.on('data', start.onOutput);
    child.stderr?.on('data', start.onOutput);
    return child;
  };
  const { probe } = start;
  if (probe?.bwrapPath === undefined) {
    await spawnTurn();
    const child = listen(
      settings.spawn('bash', ['-lc', start.script], { ...base, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    return startHostCommand({
      child,
      marker: `SWITCHYARD_COMMAND_ID=${start.commandId}`,
      graceMs: settings.limits.killGraceMs,
    });
  }
  const { options } = settings.sandbox;
  const filter = privilegeBitFilter();
  if (filter === undefined) throw new Error(`no seccomp filter for ${process.arch}`);
  if (start.totals === undefined) throw new Error('a sandboxed command needs its totals');
  const args = await sandboxArguments({
    home: settings.home.root,
    hiddenPaths: options.hiddenPaths,
    exposedPaths: exposedPaths(settings),
    readOnlyPaths: options.readOnlyPaths,
    namespaces: namespacesOf(probe, options.network),
    graceMs: settings.limits.killGraceMs,
    script: start.script,
    limits: settings.limits,
  });
  const cgroupParent = await pidsCgroupParent();
  const cgroup =
    cgroupParent === undefined
      ? undefined
      : // bwrap itself is in the cgroup too, outside the namespace.
        await CommandCgroup.create(cgroupParent, settings.limits.maxProcesses + 1).catch((error: Error) => {
          throw new Error(`the process limit could not be set up (${error.message})`);
        });
  const [file, fileArgs] =
    cgroup === undefined ? [probe.bwrapPath, args] : joinCgroup(cgroup, probe.bwrapPath, args);
  // bubblewrap is started with the command's own environment: inside, /proc/1/environ is readable.
  const stdio: StdioOptions = ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'];
  await spawnTurn();
  const child = listen(settings.spawn(file, fileArgs, { ...base, stdio }));
  const seccomp = (child.stdio as unknown[])[SECCOMP_FD] as NodeJS.WritableStream | null | undefined;
  seccomp?.on('error', () => undefined);
  seccomp?.end(filter);
  const run = startSandboxedCommand({ child, graceMs: settings.limits.killGraceMs, totals: start.totals });
  if (cgroup === undefined) return run;
  return {
    ...run,
    dispose: () => {
      run.dispose();
      void cgroup.remove();
    },
  };
}
