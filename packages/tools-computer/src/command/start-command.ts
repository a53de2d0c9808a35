import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ComputerSettings } from '../resolve-computer-settings';
import { type BubblewrapProbe, namespacesOf } from './bubblewrap';
import type { CommandRun } from './command-run';
import { bundledToolDirectories } from './default-path-prepend';
import { startHostCommand } from './host-command';
import { OutputReader, type OutputReceiver } from './output-reader';
import { sandboxOptions } from './sandbox-arguments';
import type { CommandTotals } from './sandbox-monitor';
import { parkSandboxProcess, takeSandboxProcess } from './sandbox-process';
import { startSandboxedCommand } from './sandboxed-command';
import { privilegeBitFilter } from './seccomp-filter';
import { spawnTurn } from './spawn-turn';

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
  /** Receives the output, in order (see `OutputReceiver` for how long the bytes are valid). */
  readonly onOutput: OutputReceiver;
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
 * Spawns the command: `bash -lc` directly, or inside bubblewrap when `start.probe` found a sandbox.
 * A sandboxed command takes a bubblewrap started ahead of it (`takeSandboxProcess`: for a root
 * worker already in its own `pids` cgroup, removed when the command ends), listens to it, hands it
 * the seccomp filter and its options, and then parks another for the next command. Either way the
 * command's stdout and stderr are one `OutputReader`'s socket, whose bytes go to `start.onOutput`.
 *
 * Contract: throws when the sandbox cannot be prepared (a root worker's cgroup that cannot be made
 * or joined) or the output's socket pair cannot be made; a spawn that fails comes back as the run's
 * `shellEnded` error.
 */
export async function startCommand(settings: ComputerSettings, start: CommandStart): Promise<CommandRun> {
  const { probe } = start;
  if (probe?.bwrapPath === undefined) {
    const output = await OutputReader.open();
    output.listen(start.onOutput);
    await spawnTurn();
    let child: ChildProcess;
    try {
      // stdout and stderr are one socket: the shell's own messages and the command's interleave in order.
      child = settings.spawn('bash', ['-lc', start.script], {
        cwd: settings.home.root,
        env: start.environment,
        detached: true,
        stdio: ['ignore', output.commandEnd, output.commandEnd],
      });
    } catch (error) {
      output.destroy();
      throw error;
    } finally {
      output.releaseCommandEnd();
    }
    return startHostCommand({
      child,
      output,
      marker: `SWITCHYARD_COMMAND_ID=${start.commandId}`,
      graceMs: settings.limits.killGraceMs,
    });
  }
  const { options } = settings.sandbox;
  const filter = privilegeBitFilter();
  if (filter === undefined) throw new Error(`no seccomp filter for ${process.arch}`);
  if (start.totals === undefined) throw new Error('a sandboxed command needs its totals');
  const bwrapOptions = await sandboxOptions({
    home: settings.home.root,
    hiddenPaths: options.hiddenPaths,
    exposedPaths: exposedPaths(settings),
    readOnlyPaths: options.readOnlyPaths,
    namespaces: namespacesOf(probe, options.network),
    graceMs: settings.limits.killGraceMs,
    script: start.script,
    environment: start.environment,
    limits: settings.limits,
  });
  const sandbox = await takeSandboxProcess(settings.spawn, probe.bwrapPath, settings.parkSandboxes);
  sandbox.output.listen(start.onOutput);
  const run = startSandboxedCommand({
    child: sandbox.child,
    output: sandbox.output,
    exited: sandbox.exited,
    graceMs: settings.limits.killGraceMs,
    totals: start.totals,
  });
  try {
    await sandbox.launch(bwrapOptions, filter, settings.limits.maxProcesses);
  } catch (error) {
    run.dispose();
    throw error;
  }
  if (settings.parkSandboxes) parkSandboxProcess(settings.spawn, probe.bwrapPath);
  const { cgroup } = sandbox;
  if (cgroup === undefined) return run;
  return {
    ...run,
    dispose: () => {
      run.dispose();
      void cgroup.remove();
    },
  };
}
