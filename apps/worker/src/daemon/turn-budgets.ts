import { metrics } from '@opentelemetry/api';
import type { TurnBudget } from '@switchyard/core';
import { WORKER_TRACER_NAME } from '../telemetry/http-trace-middleware';
import type { DaemonTurnBudgets, DaemonTurnContext } from './daemon-turn-types';
import type { SlotWaiters } from './slot-waiters';
import type { TurnEntry } from './turn-entry';

/** How often the first turn of an agent waiting for a slot asks again (`slotPollMs`), ms. */
export const DEFAULT_SLOT_POLL_MS = 500;

/** The metric of turns an agent's budget delayed or ended. */
export const BUDGET_METRICS = {
  /**
   * Counter: turns a limit delayed (`turnsAtOnce`) or ended (`tokensPerTurn`, `tokensPerDay`), by
   * `switchyard.budget.limit` and `gen_ai.agent.name`.
   */
  limitedTurns: 'switchyard.budget.limited_turns',
} as const;

/** Adds `limit` to the limits that delayed or ended the turn (its snapshot's `limitedBy`), once, and counts it. */
export function noteLimit(entry: TurnEntry, limit: string): void {
  const limits = entry.snapshot.limitedBy ?? [];
  if (limits.includes(limit)) return;
  entry.snapshot.limitedBy = [...limits, limit];
  // Looked up when counted: the application may install its metrics SDK after this module loads.
  metrics
    .getMeter(WORKER_TRACER_NAME)
    .createCounter(BUDGET_METRICS.limitedTurns, {
      unit: '{turn}',
      description: "Turns an agent's budget delayed (turnsAtOnce) or ended (tokensPerTurn, tokensPerDay)",
    })
    .add(1, { 'switchyard.budget.limit': limit, 'gen_ai.agent.name': entry.snapshot.agent });
}

/**
 * Waits until the turn holds a slot among its agent's turns at once (`admitTurn`; refused, the turn
 * waits in its agent's line in `slots`, whose first asks again when a turn ends here or every
 * `slotPollMs`), with its time limit paused meanwhile: a turn queued behind others is not timed out
 * by their length. A turn that already holds one (resumed) goes on at once.
 *
 * Contract: resolves once admitted; resolves too when the turn's signal aborts (the loop then ends
 * it `aborted` without a request); rejects only when the records cannot be asked (the turn fails).
 */
export async function waitForSlot(
  entry: TurnEntry,
  context: DaemonTurnContext,
  budgets: DaemonTurnBudgets,
  slots: SlotWaiters,
  log?: (line: string) => void,
): Promise<void> {
  const { turnsAtOnce } = budgets.of(context.agentId);
  const request = { turnId: context.turnId, agentId: context.agentId, turnsAtOnce };
  const answer = await budgets.store.admitTurn(request);
  if (answer.admitted) return;
  noteLimit(entry, 'turnsAtOnce');
  log?.(
    `switchyard serve: turn ${context.turnId} of agent ${context.agentId} waits for a slot: ${answer.running} of its turns run at once, its limit is ${turnsAtOnce} (turnsAtOnce)`,
  );
  entry.deadline?.pause();
  try {
    await slots.wait(request, context.signal);
  } finally {
    entry.deadline?.resume();
  }
}

/**
 * The loop's budget for one turn of `context.agentId`: before each model request, the turn's
 * tokens (a continued turn's earlier part included) against `tokensPerTurn`, then its agent's last
 * 24 hours against `tokensPerDay` (what every process on the database recorded; checks at the same
 * moment share one reading, plus what this process recorded since it began); after each
 * response, its tokens recorded for the agent before its calls run.
 */
export function turnBudgetOf(
  entry: TurnEntry,
  context: DaemonTurnContext,
  budgets: DaemonTurnBudgets,
): TurnBudget {
  const { store } = budgets;
  return {
    beforeRequest: async (usage) => {
      const limits = budgets.of(context.agentId);
      const spent = entry.offset.usage.totalTokens + usage.totalTokens;
      if (spent >= limits.tokensPerTurn) {
        noteLimit(entry, 'tokensPerTurn');
        return `the turn spent ${spent} tokens, its agent's limit per turn is ${limits.tokensPerTurn} (tokensPerTurn)`;
      }
      const today = await store.tokensLastDay(context.agentId, { shareUnderWay: true });
      if (today >= limits.tokensPerDay) {
        noteLimit(entry, 'tokensPerDay');
        return `agent ${context.agentId} spent ${today} tokens in the last 24 hours, its limit is ${limits.tokensPerDay} (tokensPerDay)`;
      }
      return undefined;
    },
    afterResponse: (usage) => store.recordTokens(context.agentId, usage.totalTokens),
  };
}
