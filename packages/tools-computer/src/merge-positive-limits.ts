import { ComputerToolsConfigError } from './errors/computer-tools-config-error';

/**
 * Merges the `limits` a caller gave over their defaults: each a positive whole number, and at least
 * its entry in `minimums` when it has one. Shared by the computer tools' limits and the Skills'.
 *
 * Contract: throws `ComputerToolsConfigError` on `limits` when `given` is not an object, and on
 * `limits.<key>` for a key `defaults` does not have ("is not a known <noun>"), a value that is not a
 * positive safe integer, or one under its minimum.
 */
export function mergePositiveLimits<Limits extends { [Key in keyof Limits]: number }>(
  given: Partial<Limits> | undefined,
  defaults: Readonly<Limits>,
  options: { noun: string; minimums?: Partial<Record<keyof Limits, number>> },
): Limits {
  if (given !== undefined && (typeof given !== 'object' || given === null)) {
    throw new ComputerToolsConfigError({ field: 'limits', message: 'must be an object' });
  }
  const merged: Limits = { ...defaults };
  for (const [key, value] of Object.entries(given ?? {})) {
    if (!(key in defaults)) {
      throw new ComputerToolsConfigError({
        field: `limits.${key}`,
        message: `is not a known ${options.noun}`,
      });
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new ComputerToolsConfigError({
        field: `limits.${key}`,
        message: `must be a positive integer, got ${JSON.stringify(value)}`,
      });
    }
    const minimum = options.minimums?.[key as keyof Limits];
    if (minimum !== undefined && value < minimum) {
      throw new ComputerToolsConfigError({
        field: `limits.${key}`,
        message: `must be at least ${minimum.toLocaleString('en-US')}, got ${value.toLocaleString('en-US')}`,
      });
    }
    merged[key as keyof Limits] = value as Limits[keyof Limits];
  }
  return merged;
}
