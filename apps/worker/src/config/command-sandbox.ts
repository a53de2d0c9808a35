import path from 'node:path';
import {
  type ComputerSandboxOptions,
  type ComputerToolsLimits,
  checkSandbox,
  type SandboxStatus,
} from '@switchyard/tools-computer';
import type { WorkerConfig } from './worker-config';
import { WorkerConfigError } from './worker-config-error';

/**
 * The sandbox options of an agent's `run_command` (every agent's when `agentId` is left out): the
 * configured mode, the network (the agent's own `agents.<name>.computer.sandbox.network` over
 * `categories.computer.sandbox.network`), the read-only paths of both, and the paths no command may
 * see even where they lie inside what the sandbox shows: the folder of all agents' homes, the
 * worker's state directory `<baseDir>/.switchyard`, the PGlite data directory, the configuration
 * file itself (MCP server `env` and `headers` may hold secrets), and the configured `hiddenPaths`.
 * Undefined when the computer category is off.
 */
export function commandSandbox(config: WorkerConfig, agentId?: string): ComputerSandboxOptions | undefined {
  const computer = config.categories.computer;
  if (computer === undefined) return undefined;
  const own = agentId === undefined ? undefined : config.agents[agentId]?.computer;
  return {
    mode: computer.sandbox.mode,
    network: own?.network ?? computer.sandbox.network,
    // The configured paths first: an error about `sandbox.hiddenPaths[i]` then names the same entry
    // as `categories.computer.sandbox.hiddenPaths[i]`.
    hiddenPaths: [
      ...computer.sandbox.hiddenPaths,
      computer.homeRoot,
      path.resolve(config.baseDir, '.switchyard'),
      config.database.dataDir,
      ...(config.source === undefined ? [] : [config.source]),
    ],
    readOnlyPaths: [...computer.sandbox.readOnlyPaths, ...(own?.readOnlyPaths ?? [])],
  };
}

/** An agent's command and file limits: `agents.<name>.computer.limits` over `categories.computer.limits`, field by field. */
export function computerLimitsOf(config: WorkerConfig, agentId: string): ComputerToolsLimits {
  return { ...config.categories.computer?.limits, ...config.agents[agentId]?.computer?.limits };
}

/** The sandbox's state for the agents `serve` runs, as `/healthz` and the console show it. */
export interface CommandSandboxReport {
  /**
   * `sandboxed`: every agent's commands run in the sandbox; `unsandboxed`: some run unconfined (mode
   * `auto` where bubblewrap cannot work); `off`: mode `off`; `no-commands`: the computer category is off.
   */
  state: 'sandboxed' | 'unsandboxed' | 'off' | 'no-commands';
  /** One line: what runs how, and why not sandboxed. */
  summary: string;
}

/** One report for the statuses of the agents' sandboxes (undefined: no computer category). */
export function sandboxReport(statuses: readonly SandboxStatus[] | undefined): CommandSandboxReport {
  if (statuses === undefined || statuses.length === 0) {
    return { state: 'no-commands', summary: 'no run_command (the computer category is off)' };
  }
  const missing = statuses.find((status) => !status.active);
  if (missing === undefined) {
    const networks = [...new Set(statuses.map((status) => status.network))].join(' and ');
    return {
      state: 'sandboxed',
      summary: `commands run in the sandbox (${statuses[0]?.version ?? 'bubblewrap'}, network ${networks})`,
    };
  }
  if (missing.mode === 'off')
    return { state: 'off', summary: `commands are not sandboxed: ${missing.reason}` };
  return { state: 'unsandboxed', summary: `commands run unconfined: ${missing.reason}` };
}

/**
 * The start-up check of `switchyard run` and `switchyard serve`: probes bubblewrap once per network
 * the agents' commands get (without blocking; the computer tools then reuse the answer) and says what
 * commands will run in.
 *
 * Contract: throws `WorkerConfigError` (field `categories.computer.sandbox`) when the mode is
 * `required` and commands cannot be sandboxed here, naming the reason; with `auto`, calls `warn` once
 * with the reason and goes on. Resolves with the status of each agent's sandbox (in the order of
 * `agentIds`, default the configured `agent`), or undefined when the computer category is off.
 */
export async function checkCommandSandbox(
  config: WorkerConfig,
  warn: (line: string) => void,
  agentIds: readonly string[] = [config.agent],
): Promise<SandboxStatus[] | undefined> {
  if (config.categories.computer === undefined) return undefined;
  const statuses: SandboxStatus[] = [];
  for (const agentId of agentIds) {
    const sandbox = commandSandbox(config, agentId);
    if (sandbox !== undefined) statuses.push(await checkSandbox(sandbox));
  }
  const missing = statuses.find((status) => !status.active && status.mode !== 'off');
  if (missing === undefined) return statuses;
  if (missing.mode === 'required') {
    throw new WorkerConfigError({
      issues: [
        {
          field: 'categories.computer.sandbox',
          message: `is 'required' but commands cannot be sandboxed here: ${missing.reason}`,
        },
      ],
      source: config.source,
    });
  }
  warn(
    `switchyard: warning: commands run without a sandbox: ${missing.reason} ` +
      "(categories.computer.sandbox is 'auto'; 'required' refuses to start without one, 'off' silences this)",
  );
  return statuses;
}
