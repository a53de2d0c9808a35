import type { ConfigFile } from './config-schema';

/**
 * An agent's spending and concurrency limits (`budgets` for every agent, `agents.<name>.budgets`
 * over it field by field). Held across every `serve` process on one database: the control plane
 * counts them in the transaction that starts or records the work.
 */
export interface AgentBudgets {
  /** Tokens (input plus output, as the endpoint reports them) one turn may spend; past it the turn ends `budget-exceeded`. */
  tokensPerTurn: number;
  /** Tokens the agent's turns may spend in any 24 hours (a rolling window); past it its turns end `budget-exceeded`. */
  tokensPerDay: number;
  /** The agent's turns running at once across the fleet; more wait for a slot. */
  turnsAtOnce: number;
  /** Schedules the agent may create in any hour; more are refused (`create_schedule`, `POST /v1/schedules`). */
  schedulesPerHour: number;
  /** Fires of the agent's schedules in any hour; a fire past it waits until the hour has room. */
  scheduleFiresPerHour: number;
  /** Workflows the agent may start in any hour; more are refused. */
  workflowsPerHour: number;
  /** Background jobs the agent may start in any hour; more are refused. */
  backgroundJobsPerHour: number;
}

/**
 * The budgets of an agent the configuration says nothing about: generous for honest work, and a
 * ceiling on what a prompt-injected turn (schedules firing every minute, workflows of many tasks,
 * turns looping to their iteration limit) can spend in a day.
 */
export const DEFAULT_AGENT_BUDGETS: Readonly<AgentBudgets> = Object.freeze({
  tokensPerTurn: 2_000_000,
  tokensPerDay: 50_000_000,
  turnsAtOnce: 16,
  schedulesPerHour: 30,
  scheduleFiresPerHour: 120,
  workflowsPerHour: 30,
  backgroundJobsPerHour: 60,
});

/** `budgets` of the file over the defaults, then `override` (an agent's own) over that, field by field. */
export function resolveBudgets(
  base: ConfigFile['budgets'] | AgentBudgets,
  override?: ConfigFile['budgets'],
): AgentBudgets {
  return { ...DEFAULT_AGENT_BUDGETS, ...base, ...override };
}
