import { type ConfigErrorOptions, SwitchyardConfigError } from '@switchyard/core';

/**
 * The MCP server configuration is invalid: a server name that is not a valid namespace, a server
 * with neither `command` nor `url`, a field of the wrong type, an unknown field.
 *
 * Contract: thrown by `connectMcpServers` before any server is started. `field` is the path of the
 * offending field, e.g. `servers.calc.args[1]`.
 */
export class McpConfigurationError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('McpConfigurationError', 'MCP', options);
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is McpConfigurationError {
    return SwitchyardConfigError.hasMark(value, 'McpConfigurationError');
  }
}
