import { SwitchyardError } from '@switchyard/core';

const marker = Symbol.for('switchyard.error.ControlPlaneConfigError');

/**
 * An option of `openControlPlane` is invalid: a limit or interval that is not a number in range,
 * a flag that is not a boolean.
 *
 * Contract: thrown by `openControlPlane` before it opens the database. `field` names the offending option as a dotted path from the
 * options object, e.g. `schedules.maxSchedulesPerAgent`; the message says what to change.
 */
export class ControlPlaneConfigError extends SwitchyardError {
  /** The option at fault, as a dotted path from the options object, e.g. `schedules.maxSchedulesPerAgent`. */
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super(`${options.field}: ${options.message}`, { cause: options.cause });
    this.name = 'ControlPlaneConfigError';
    Object.defineProperty(this, marker, { value: true });
    this.field = options.field;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is ControlPlaneConfigError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
