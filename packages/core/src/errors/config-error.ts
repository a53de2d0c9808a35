import { SwitchyardError } from './switchyard-error';

/** What a configuration error says: the field at fault and what is wrong with it. */
export interface ConfigErrorOptions {
  /** The option at fault, as a dotted path from the object the caller passed, e.g. `search.apiKey`. */
  field: string;
  /** What is wrong and what to change. */
  message: string;
  /** The error that revealed the problem, if any. */
  cause?: unknown;
}

/**
 * Base class of each package's configuration error (`WebToolsConfigError`,
 * `ComputerToolsConfigError`, `ControlPlaneConfigError`, ...): `field` names the option at fault.
 *
 * Contract: thrown when tools or services are created, never mid-turn, so a bad configuration fails
 * at start-up. `SwitchyardConfigError.isInstance(error)` holds for the configuration error of every
 * tool category and of the control plane, from any copy of core; each subclass's own `isInstance`
 * holds for that class only.
 */
export class SwitchyardConfigError extends SwitchyardError {
  /** The option at fault, as a dotted path from the object the caller passed. */
  readonly field: string;

  /**
   * @param name the subclass's name, also its mark.
   * @param subject what was configured (`'web tools'`): the message reads `Invalid web tools
   *   configuration: <field>: <message>`; without it, `<field>: <message>`.
   */
  protected constructor(name: string, subject: string | undefined, options: ConfigErrorOptions) {
    const detail = `${options.field}: ${options.message}`;
    super(subject === undefined ? detail : `Invalid ${subject} configuration: ${detail}`, {
      cause: options.cause,
    });
    this.markAs('SwitchyardConfigError');
    this.markAs(name);
    this.field = options.field;
  }

  /** True for any package's configuration error, from any copy of core. */
  static override isInstance(value: unknown): value is SwitchyardConfigError {
    return SwitchyardError.hasMark(value, 'SwitchyardConfigError');
  }
}
