import { SwitchyardError } from '@switchyard/core';

const marker = Symbol.for('switchyard.error.ScheduleToolsConfigError');

/**
 * The schedule tools were configured wrongly: a service missing a method, an empty `agentId`, a
 * `defaultTimeZone` that is not an IANA zone.
 *
 * Contract: thrown by `createScheduleTools` when the tools are created, never mid-turn. `field` names the offending option as a dotted path from the
 * context object, e.g. `defaultTimeZone`; the message says what to change.
 */
export class ScheduleToolsConfigError extends SwitchyardError {
  /** The option at fault, as a dotted path from the context object, e.g. `defaultTimeZone`. */
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super(`Invalid schedule tools configuration: ${options.field}: ${options.message}`, {
      cause: options.cause,
    });
    this.name = 'ScheduleToolsConfigError';
    Object.defineProperty(this, marker, { value: true });
    this.field = options.field;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is ScheduleToolsConfigError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
