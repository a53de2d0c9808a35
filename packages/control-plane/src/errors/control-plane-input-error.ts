import { SwitchyardError } from '@switchyard/core';

/**
 * A value the control plane refuses before writing it: a NUL character or a lone surrogate, a
 * value over the size limit, an invalid cron expression or time zone, a one-shot time in the past,
 * a schedule over the per-agent limit, ...
 *
 * Contract: thrown before anything is written, so nothing is half-stored. `field` names the input
 * field at fault; the message says what to change.
 */
export class ControlPlaneInputError extends SwitchyardError {
  /** The input field at fault, e.g. `prompt`, `cron`, `timeZone`, `result`. */
  readonly field: string;

  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super(`${field}: ${message}`, options);
    this.markAs('ControlPlaneInputError');
    this.field = field;
  }

  static override isInstance(value: unknown): value is ControlPlaneInputError {
    return SwitchyardError.hasMark(value, 'ControlPlaneInputError');
  }
}
