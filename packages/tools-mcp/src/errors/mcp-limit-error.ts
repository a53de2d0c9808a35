import { SwitchyardError } from '@switchyard/core';

/** The name of a server's limit, as it is configured (see `McpServerCommonConfig`). */
export type McpLimitName =
  | 'maxMessageBytes'
  | 'maxToolListPages'
  | 'maxTools'
  | 'maxSchemaBytes'
  | 'maxResultBytes'
  | 'callDeadlineMs'
  | 'startupTimeoutMs';

/**
 * An MCP server went past one of its limits: a message over `maxMessageBytes`, a tool list past
 * `maxToolListPages`, a call past `callDeadlineMs`, ...
 *
 * Contract: never thrown out of a call (a call's limit becomes an `isError` result with this message);
 * `connectMcpServers` throws it as the `cause` of an `McpConnectionError` when the start-up handshake
 * itself is refused. The message names the server and the limit with its value.
 */
export class McpLimitError extends SwitchyardError {
  /** The configured name of the server. */
  readonly server: string;
  /** The limit it went past. */
  readonly limit: McpLimitName;

  constructor(options: { server: string; limit: McpLimitName; message: string }) {
    super(options.message);
    this.markAs('McpLimitError');
    this.server = options.server;
    this.limit = options.limit;
  }

  /** True for an `McpLimitError` from any copy of this package. */
  static override isInstance(value: unknown): value is McpLimitError {
    return SwitchyardError.hasMark(value, 'McpLimitError');
  }
}
