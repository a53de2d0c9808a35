import path from 'node:path';
import { resolveBudgets } from './agent-budgets';
import type { ConfigFile } from './config-schema';
import { refuseWholeFileSystem } from './refuse-whole-file-system';
import { resolveApprovals } from './resolve-approvals';
import type { WorkerAgentComputerConfig, WorkerConfig } from './worker-config';
import type { WorkerConfigIssue } from './worker-config-error';

/** `agents.<name>.computer` with its paths resolved against the file's folder. */
function resolveAgentComputer(
  computer: NonNullable<NonNullable<ConfigFile['agents']>[string]['computer']>,
  baseDir: string,
): WorkerAgentComputerConfig {
  return {
    limits: computer.limits ?? {},
    network: computer.sandbox?.network,
    readOnlyPaths: (computer.sandbox?.readOnlyPaths ?? []).map((entry) => path.resolve(baseDir, entry)),
  };
}

/**
 * `agents.<name>` of the file: each agent's approval policy over the file's own, and its computer
 * settings with their paths resolved against `baseDir`; a read-only path of `/` is pushed to `issues`.
 */
export function resolveAgents(
  file: Pick<ConfigFile, 'agents' | 'approvals' | 'budgets'>,
  baseDir: string,
  issues: WorkerConfigIssue[],
): WorkerConfig['agents'] {
  for (const [name, agent] of Object.entries(file.agents ?? {})) {
    refuseWholeFileSystem(
      agent.computer?.sandbox?.readOnlyPaths,
      `agents.${name}.computer.sandbox.readOnlyPaths`,
      baseDir,
      issues,
    );
  }
  return Object.fromEntries(
    Object.entries(file.agents ?? {}).map(([name, agent]) => [
      name,
      {
        approvals: resolveApprovals(file.approvals, { agent: name, approvals: agent.approvals }),
        budgets: resolveBudgets(file.budgets, agent.budgets),
        ...(agent.computer === undefined ? {} : { computer: resolveAgentComputer(agent.computer, baseDir) }),
      },
    ]),
  );
}
