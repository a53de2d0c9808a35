import { SwitchyardError } from './switchyard-error';

/**
 * A tool definition (or a tool set) is invalid: a bad name, a schema with a non-object root, a
 * namespace without a name, two tools with the same key, ...
 *
 * Contract: thrown when the tool is defined or the tool set is assembled, never mid-turn, so a
 * bad tool fails at start-up. `field` names the offending field of the definition.
 */
export class ToolDefinitionError extends SwitchyardError {
  /** The tool's name as given (may itself be the invalid value). */
  readonly toolName: string | undefined;
  /** The definition field at fault, e.g. `name`, `schema`, `namespace`. */
  readonly field: string;

  constructor(options: { toolName?: string; field: string; message: string; cause?: unknown }) {
    const subject = options.toolName === undefined ? 'tool definition' : `tool '${options.toolName}'`;
    super(`Invalid ${subject}: ${options.field}: ${options.message}`, { cause: options.cause });
    this.markAs('ToolDefinitionError');
    this.toolName = options.toolName;
    this.field = options.field;
  }

  static override isInstance(value: unknown): value is ToolDefinitionError {
    return SwitchyardError.hasMark(value, 'ToolDefinitionError');
  }
}
