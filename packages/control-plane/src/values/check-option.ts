import { ControlPlaneConfigError } from '../errors/control-plane-config-error';

/** A number option of at least `minimum`, or `fallback` when not given. */
export function positive(field: string, value: number | undefined, fallback: number, minimum = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum) {
    throw new ControlPlaneConfigError({
      field,
      message: `must be a number of at least ${minimum}, got ${String(value)}`,
    });
  }
  return value;
}

/** A whole number of at least `minimum` (pg-boss stores retries, delays and expiry as integers). */
export function whole(
  field: string,
  value: number | undefined,
  fallback: number,
  minimum = 1,
  maximum?: number,
): number {
  const checked = positive(field, value, fallback, minimum);
  if (!Number.isInteger(checked) || (maximum !== undefined && checked > maximum)) {
    throw new ControlPlaneConfigError({
      field,
      message: `must be a whole number from ${minimum}${maximum === undefined ? '' : ` to ${maximum}`}, got ${String(value)}`,
    });
  }
  return checked;
}
