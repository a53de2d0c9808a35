import type { SqlExecutor } from '../database/database';
import type { DetachedTurnEnd } from './detached-turn-end';
import type { TurnRecovery, TurnSource } from './turn-record';

// What the turn and approval stores ask of the queue that owns the unit a turn runs (a workflow
// task, a background job, a schedule run), each inside the caller's transaction: `openControlPlane`
// routes them to the turn-request and work-turn queues (`routeTurnUnits`).

/** What the hand-back of an interrupted turn's unit is told about the turn. */
export interface InterruptedTurnFacts {
  /** The turn's agent. */
  agentId: string;
  /** Where it came from. */
  source: TurnSource;
  /** Its source's id (`workflowId/taskId`, a job id, a schedule run id). */
  sourceId: string;
  /** The attempt it ran. */
  attempt: number;
  /** The worker that ran it. */
  workerId: string;
}

/** What a hand-back reports: the recovery, less what the turn itself says. */
export type UnitHandBack = Omit<TurnRecovery, 'attempt' | 'previousWorkerId'>;

/**
 * Internal: hands an interrupted turn's unit back to its queue (or parks it as failed), inside the
 * transaction that marks the turn interrupted; undefined when the turn's source has no unit.
 */
export type HandBackUnit = (
  transaction: SqlExecutor,
  turn: InterruptedTurnFacts,
) => Promise<UnitHandBack | undefined>;

/**
 * Internal: settles the unit of a turn that ran detached from its queue job (a call of it was held
 * for approval), inside the transaction recording the turn's end: a finished turn completes the
 * unit as the queue's consumer would have; any other end hands it back for its next attempt, or
 * fails it when it had none left. Only while the turn's attempt is still the unit's running one.
 */
export type SettleDetachedUnit = (
  transaction: SqlExecutor,
  turn: InterruptedTurnFacts,
  end: DetachedTurnEnd,
) => Promise<void>;

/**
 * Internal: detaches the unit a turn runs (task, job, schedule run) from its queue job inside the
 * caller's transaction; resolves undefined when done, or why the turn's attempt no longer runs it.
 */
export type DetachUnit = (
  transaction: SqlExecutor,
  turn: InterruptedTurnFacts,
) => Promise<string | undefined>;
