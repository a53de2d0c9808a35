import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import type { TurnSource } from './turn-record';

// What the turn records accept: ids, sources and statuses, checked before anything is written.

export const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;
export const SOURCES: ReadonlySet<string> = new Set<TurnSource>(['api', 'schedule', 'job', 'task']);
export const END_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  'incomplete',
  'ended-by-tool',
  'aborted',
  'max-iterations',
  'budget-exceeded',
  'failed',
]);
export const STATUSES: ReadonlySet<string> = new Set([
  ...END_STATUSES,
  'running',
  'waiting-approval',
  'interrupted',
]);

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
