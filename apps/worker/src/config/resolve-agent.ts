import path from 'node:path';
import type { AgentBudgets } from './agent-budgets';
import type { ApprovalPolicy, WorkerConfig } from './worker-config';
import { WorkerConfigError } from './worker-config-error';

/** The agent a turn runs for. */
export interface TurnAgent {
  /** Its id: scopes schedules, workflows and jobs. */
  id: string;
  /** Its home directory, absolute: `<categories.computer.homeRoot>/<id>`. */
  home: string;
}

const AGENT_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The agent named `name` (default `config.agent`) and its home.
 *
 * Contract: throws `WorkerConfigError` (field `agent`) for a name that is not an agent id, or is
 * `.`/`..` (it would name a folder outside the home root).
 */
export function resolveAgent(config: WorkerConfig, name: string = config.agent): TurnAgent {
  if (!AGENT_PATTERN.test(name) || name === '.' || name === '..') {
    throw new WorkerConfigError({
      issues: [
        {
          field: 'agent',
          message: `${JSON.stringify(name)} is not an agent name: letters, digits, '_', '.' and '-' (1 to 64)`,
        },
      ],
    });
  }
  const root = config.categories.computer?.homeRoot ?? path.resolve(config.baseDir, '.switchyard/homes');
  return { id: name, home: path.join(root, name) };
}

/** The approval policy of agent `name`: its own (`agents.<name>.approvals`), else `approvals`. */
export function approvalPolicyOf(config: WorkerConfig, name: string): ApprovalPolicy {
  return config.agents[name]?.approvals ?? config.approvals;
}

/** The budgets of agent `name`: its own (`agents.<name>.budgets` over `budgets`), else `budgets`. */
export function budgetsOf(config: WorkerConfig, name: string): AgentBudgets {
  return config.agents[name]?.budgets ?? config.budgets;
}
