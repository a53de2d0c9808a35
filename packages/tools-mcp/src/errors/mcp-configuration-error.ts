import { SwitchyardError } from '@switchyard/core';

const marker = Symbol.for('switchyard.error.McpConfigurationError');

/**
 * The MCP server configuration is invalid: a server name that is not a valid namespace, a server
 * with neither `command` nor `url`, a field of the wrong type, an unknown field.
 *
 * Contract: thrown by `connectMcpServers` before any server is started. `field` is the path of the
 * offending field, e.g. `servers.calc.args[1]`.
 */
export class McpConfigurationError extends SwitchyardError {
  /** The path of the field at fault, e.g. `servers.calc.command`. */
  readonly field: string;

  constructor(options: { field: string; message: string }) {
    super(`Invalid MCP configuration: ${options.field}: ${options.message}`);
    this.name = 'McpConfigurationError';
    Object.defineProperty(this, marker, { value: true });
    this.field = options.field;
  }

  /** True for an `McpConfigurationError` from any copy of this package. */
  static override isInstance(value: unknown): value is McpConfigurationError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
