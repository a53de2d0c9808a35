import { SwitchyardError } from '@switchyard/core';

const marker = Symbol.for('switchyard.error.ComputerToolsConfigError');

/**
 * The computer tools were configured wrongly: a missing or unreadable home, a secret-looking name in
 * the environment allowlist, a limit that is not a positive number, ...
 *
 * Contract: thrown by `createComputerTools` when the tools are created, never mid-turn. `field`
 * names the offending context field, e.g. `home`, `env`, `limits.maxTimeoutMs`.
 */
export class ComputerToolsConfigError extends SwitchyardError {
  /** The context field at fault. */
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super(`Invalid computer tools configuration: ${options.field}: ${options.message}`, {
      cause: options.cause,
    });
    this.name = 'ComputerToolsConfigError';
    Object.defineProperty(this, marker, { value: true });
    this.field = options.field;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is ComputerToolsConfigError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
