import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { TURN_SOURCES, TURN_STATUSES, type TurnEndStatus } from './turn-record';

// What the turn records accept: ids, sources and statuses, checked before anything is written.

export const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;
export const SOURCES: ReadonlySet<string> = new Set(TURN_SOURCES);
/** The statuses an end is recorded with: every status but the open ones and `interrupted`. */
export const END_STATUSES: ReadonlySet<string> = new Set(
  TURN_STATUSES.filter(
    (status): status is TurnEndStatus =>
      status !== 'running' && status !== 'waiting-approval' && status !== 'interrupted',
  ),
);
export const STATUSES: ReadonlySet<string> = new Set(TURN_STATUSES);

/** The id, or `ControlPlaneInputError` naming `field`. */
export function checkTurnId(value: unknown, field = 'id'): string {
  if (typeof value !== 'string' || !TURN_ID.test(value)) {
    throw new ControlPlaneInputError(
      field,
      `must match ${TURN_ID} (letters, digits, '_' and '-'), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** A whole count of at least 0, or `ControlPlaneInputError` naming `field`. */
export function checkCount(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ControlPlaneInputError(field, `must be an integer >= 0, got ${String(value)}`);
  }
  return value;
}
