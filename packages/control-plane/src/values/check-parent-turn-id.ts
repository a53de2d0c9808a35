import { ControlPlaneInputError } from '../errors/control-plane-input-error';

// The turns table's own id rule (turn-store.ts): a bounded run of one character class, linear to check.
const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * The id of the turn whose tool call starts a workflow or job, to store with it, or `null` when none
 * was given (a start from the API or the CLI).
 *
 * Contract: throws `ControlPlaneInputError` naming `parentTurnId` for anything but a turn id
 * (letters, digits, `_` and `-`, 1 to 80 characters), so nothing invalid is stored. The turn is not
 * looked up: a start may be recorded before its turn's own row is readable elsewhere.
 */
export function checkParentTurnId(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !TURN_ID.test(value)) {
    throw new ControlPlaneInputError(
      'parentTurnId',
      `expected a turn id (letters, digits, '_' and '-', at most 80), got ${JSON.stringify(String(value).slice(0, 100))}`,
    );
  }
  return value;
}
