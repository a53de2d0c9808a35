import { type ConfigErrorOptions, SwitchyardConfigError } from '@switchyard/core';

/**
 * The computer tools were configured wrongly: a missing or unreadable home, a secret-looking name in
 * the environment allowlist, a limit that is not a positive number, ...
 *
 * Contract: thrown by `createComputerTools` when the tools are created, never mid-turn. `field`
 * names the offending context field, e.g. `home`, `env`, `limits.maxTimeoutMs`.
 */
export class ComputerToolsConfigError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('ComputerToolsConfigError', 'computer tools', options);
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is ComputerToolsConfigError {
    return SwitchyardConfigError.hasMark(value, 'ComputerToolsConfigError');
  }
}
