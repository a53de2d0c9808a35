import path from 'node:path';
import { type ComputerSandboxOptions, checkSandbox, type SandboxStatus } from '@switchyard/tools-computer';
import type { WorkerConfig } from './worker-config';
import { WorkerConfigError } from './worker-config-error';

/**
 * The sandbox options of every agent's `run_command`: the configured mode and network, and the
 * paths no command may see: the folder of all agents' homes (each agent's own home is mounted back),
 * the worker's state directory `<baseDir>/.switchyard`, the PGlite data directory, the configuration
 * file itself (MCP server `env` and `headers` may hold secrets), and the configured `hiddenPaths`.
 * Undefined when the computer category is off.
 */
export function commandSandbox(config: WorkerConfig): ComputerSandboxOptions | undefined {
  const computer = config.categories.computer;
  if (computer === undefined) return undefined;
  return {
    mode: computer.sandbox.mode,
    network: computer.sandbox.network,
    // The configured paths first: an error about `sandbox.hiddenPaths[i]` then names the same entry
    // as `categories.computer.sandbox.hiddenPaths[i]`.
    hiddenPaths: [
      ...computer.sandbox.hiddenPaths,
      computer.homeRoot,
      path.resolve(config.baseDir, '.switchyard'),
      config.database.dataDir,
      ...(config.source === undefined ? [] : [config.source]),
    ],
  };
}

/**
 * The start-up check of `switchyard run` and `switchyard serve`: probes bubblewrap once (without
 * blocking; the computer tools then reuse the answer) and says what commands will run in.
 *
 * Contract: throws `WorkerConfigError` (field `categories.computer.sandbox`) when the mode is
 * `required` and commands cannot be sandboxed here, naming the reason; with `auto`, calls `warn` once
 * with the reason and goes on. Resolves with the status, or undefined when the computer category is off.
 */
export async function checkCommandSandbox(
  config: WorkerConfig,
  warn: (line: string) => void,
): Promise<SandboxStatus | undefined> {
  const sandbox = commandSandbox(config);
  if (sandbox === undefined) return undefined;
  const status = await checkSandbox(sandbox);
  if (status.active || status.mode === 'off') return status;
  if (status.mode === 'required') {
    throw new WorkerConfigError({
      issues: [
        {
          field: 'categories.computer.sandbox',
          message: `is 'required' but commands cannot be sandboxed here: ${status.reason}`,
        },
      ],
      source: config.source,
    });
  }
  warn(
    `switchyard: warning: commands run without a sandbox: ${status.reason} ` +
      "(categories.computer.sandbox is 'auto'; 'required' refuses to start without one, 'off' silences this)",
  );
  return status;
}
