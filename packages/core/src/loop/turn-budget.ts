import type { AgentRunStatus, AgentUsage } from '../events/agent-event';

/**
 * What a turn may spend (`runAgentLoop`'s `budget`): the loop asks `beforeRequest` before each model
 * request it would send, with the turn's usage so far, and tells `afterResponse` the usage of each
 * response it received, before the response's calls run (with a journal, each while the journal writes:
 * the last output before the request, the response after it). A turn continued from its journal replays
 * recorded responses without a request: neither is called for those.
 *
 * Contract: a string from `beforeRequest` ends the turn `budget-exceeded` with that reason as its
 * `error`, without the request; the last response's output stays the turn's output. A rejection of
 * either ends the turn `failed` with it (a budget that cannot be checked is not spent blindly).
 */
export interface TurnBudget {
  /** Undefined lets the request go; a reason (what limit, spent against what) refuses it. */
  beforeRequest(usage: AgentUsage): Promise<string | undefined> | string | undefined;
  /** One response's usage, received; awaited before the loop goes on. */
  afterResponse?(usage: AgentUsage): Promise<void> | void;
}

/** How a budget ends a turn: `budget-exceeded` with its reason, or `failed` when it could not answer. */
interface BudgetEnding {
  status: Extract<AgentRunStatus, 'budget-exceeded' | 'failed'>;
  error: Error;
}

function budgetError(caught: unknown): Error {
  const error = caught instanceof Error ? caught : new Error(String(caught));
  return new Error(`the turn's budget could not be checked: ${error.message}`, { cause: error });
}

/** The loop's question before a request: the turn's ending when the budget refuses it (or cannot answer). */
export async function askBudget(
  budget: TurnBudget | undefined,
  usage: AgentUsage,
): Promise<BudgetEnding | undefined> {
  if (budget === undefined) return undefined;
  let reason: string | undefined;
  try {
    reason = await budget.beforeRequest({ ...usage });
  } catch (caught) {
    return { status: 'failed', error: budgetError(caught) };
  }
  return reason === undefined ? undefined : { status: 'budget-exceeded', error: new Error(reason) };
}

/** The loop telling the budget a response's usage: the turn's ending (`failed`) when that rejects. */
export async function tellBudget(
  budget: TurnBudget | undefined,
  usage: AgentUsage,
): Promise<BudgetEnding | undefined> {
  if (budget?.afterResponse === undefined) return undefined;
  try {
    await budget.afterResponse(usage);
    return undefined;
  } catch (caught) {
    return { status: 'failed', error: budgetError(caught) };
  }
}
