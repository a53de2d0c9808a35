import { type ConfigErrorOptions, SwitchyardConfigError } from '@switchyard/core';

/**
 * The schedule tools were configured wrongly: a service missing a method, an empty `agentId`, a
 * `defaultTimeZone` that is not an IANA zone.
 *
 * Contract: thrown by `createScheduleTools` when the tools are created, never mid-turn. `field` names the offending option as a dotted path from the
 * context object, e.g. `defaultTimeZone`; the message says what to change.
 */
export class ScheduleToolsConfigError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('ScheduleToolsConfigError', 'schedule tools', options);
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is ScheduleToolsConfigError {
    return SwitchyardConfigError.hasMark(value, 'ScheduleToolsConfigError');
  }
}
