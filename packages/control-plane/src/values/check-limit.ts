import { ControlPlaneInputError } from '../errors/control-plane-input-error';

/**
 * How many items a list or search may return: `limit`, or `fallback` when it is absent and there is
 * one, a whole number from 1 to `max`.
 *
 * Contract: throws `ControlPlaneInputError` naming `limit` otherwise (a missing limit without a
 * fallback included).
 */
export function checkLimit(limit: number | undefined, max: number, fallback?: number): number {
  const checked = limit ?? fallback;
  if (checked === undefined || !Number.isInteger(checked) || checked < 1 || checked > max) {
    throw new ControlPlaneInputError('limit', `must be a whole number from 1 to ${max}`);
  }
  return checked;
}
