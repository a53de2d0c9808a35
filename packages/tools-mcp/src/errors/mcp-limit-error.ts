import { SwitchyardError } from '@switchyard/core';

/**
 * The name of a server's limit, as it is configured (see `McpServerCommonConfig`), or one of the
 * fixed limits of a stdio server's messages (`MAX_MESSAGE_DEPTH`, `MAX_UNREAD_BYTES`, `MAX_INVALID_LINES`).
 */
export type McpLimitName =
  | 'maxMessageBytes'
  | 'startupTimeoutMs'
  | 'maxMessageDepth'
  | 'maxUnreadBytes'
  | 'maxInvalidLines';

/**
 * Internal: an MCP server went past a limit that fails a request: a message over `maxMessageBytes`
 * (from the transports), a tool list not complete within `startupTimeoutMs`. The other limits are
 * met where they apply (skipped tools, error results) without an error object.
 *
 * Contract: never thrown out of a call (it becomes an `isError` result with this message);
 * `connectMcpServers` throws it as the `cause` of an `McpConnectionError` when the start-up listing
 * meets it. The message names the limit with its value.
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
