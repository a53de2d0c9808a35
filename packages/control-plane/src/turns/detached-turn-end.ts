import type { TurnEndStatus } from './turn-record';

/** How a detached unit's turn ended: what settles the unit (`SettleDetachedUnit`). */
export interface DetachedTurnEnd {
  /** How the loop ended the turn. */
  status: TurnEndStatus;
  /** The turn's final text (a job without a result schema stores it). */
  output: string;
  /** Why it failed or was aborted. */
  error?: string;
}

// How both queues read the end of a turn that ran detached from its unit's job (`settleDetached`).

/** Turn ends after which a unit's result is whatever the turn left: running it again would most likely end the same way. */
const FINISHED: ReadonlySet<string> = new Set([
  'completed',
  'incomplete',
  'ended-by-tool',
  'max-iterations',
  // A budget spent: another attempt would spend more against the same limit.
  'budget-exceeded',
]);

/** Whether the turn finished (its unit settles with what the turn left) rather than failed or stopped. */
export function isFinishedTurnEnd(end: DetachedTurnEnd): boolean {
  return FINISHED.has(end.status);
}

/** Why a unit goes back to its queue (or fails) after its turn's end: `the turn ended '<status>': <error>`. */
export function turnEndReason(end: DetachedTurnEnd): string {
  return `the turn ended '${end.status}'${end.error === undefined ? '' : `: ${end.error}`}`;
}
