import type { TurnRequestQueue } from './turn-requests/turn-request-queue';
import type { DetachUnit, HandBackUnit, SettleDetachedUnit } from './turns/turn-unit-hooks';
import type { WorkTurnQueue } from './workflows/work-turn-queue';

/** What the turn and approval stores do to the unit a turn runs, each inside the caller's transaction. */
export interface TurnUnitHooks {
  /** An interrupted turn's unit goes back to its own queue, in the transaction that marks the turn. */
  handBack: HandBackUnit;
  /** A turn whose call is held detaches its unit from the queue job. */
  detachUnit: DetachUnit;
  /** The end of a turn that ran detached settles its unit. */
  settleDetached: SettleDetachedUnit;
}

/**
 * The hooks on a turn's unit, sent to the queue that owns it: a schedule turn's run to the
 * turn-request queue, a task's or job's unit to the work-turn queue.
 */
export function routeTurnUnits(turnRequests: TurnRequestQueue, workTurns: WorkTurnQueue): TurnUnitHooks {
  return {
    handBack: (transaction, turn) =>
      turn.source === 'schedule'
        ? turnRequests.handBackInterrupted(transaction, turn)
        : workTurns.handBackInterrupted(transaction, turn),
    detachUnit: (transaction, turn) =>
      turn.source === 'schedule'
        ? turnRequests.detachUnit(transaction, turn)
        : workTurns.detachUnit(transaction, turn),
    settleDetached: (transaction, turn, end) =>
      turn.source === 'schedule'
        ? turnRequests.settleDetached(transaction, turn, end)
        : workTurns.settleDetached(transaction, turn, end),
  };
}
