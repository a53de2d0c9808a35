import { type ConfigErrorOptions, SwitchyardConfigError } from '@switchyard/core';

/**
 * An option of `openControlPlane` is invalid: a limit or interval that is not a number in range,
 * a flag that is not a boolean.
 *
 * Contract: thrown by `openControlPlane` before it opens the database. `field` names the offending option as a dotted path from the
 * options object, e.g. `schedules.maxSchedulesPerAgent`; the message says what to change.
 */
export class ControlPlaneConfigError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('ControlPlaneConfigError', undefined, options);
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is ControlPlaneConfigError {
    return SwitchyardConfigError.hasMark(value, 'ControlPlaneConfigError');
  }
}
