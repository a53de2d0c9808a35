import { type ConfigErrorOptions, SwitchyardConfigError } from '@switchyard/core';

/**
 * The Brain tools were configured wrongly: a `mode` that is neither mode, a `brain` missing a method
 * the mode needs, an empty `agentId`.
 *
 * Contract: thrown by `createBrainTools` when the tools are created, never mid-turn. `field` names
 * the offending option (`mode`, `brain`, `agentId`); the message says what to change.
 */
export class BrainToolsConfigError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('BrainToolsConfigError', 'brain tools', options);
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is BrainToolsConfigError {
    return SwitchyardConfigError.hasMark(value, 'BrainToolsConfigError');
  }
}
