import { SwitchyardError } from '@switchyard/core';

/**
 * An MCP server could not be started or connected: the command does not exist, the process exited
 * during the handshake, the URL refused the connection, the handshake timed out, or its tool list
 * could not be read.
 *
 * Contract: thrown by `connectMcpServers` (after closing the servers that did connect). `server`
 * names the server; the message says what failed and ends with the tail of a stdio server's stderr
 * when it wrote any.
 */
export class McpConnectionError extends SwitchyardError {
  /** The configured name of the server that failed. */
  readonly server: string;

  constructor(options: { server: string; message: string; cause?: unknown }) {
    super(`MCP server '${options.server}' failed to start: ${options.message}`, { cause: options.cause });
    this.markAs('McpConnectionError');
    this.server = options.server;
  }

  /** True for an `McpConnectionError` from any copy of this package. */
  static override isInstance(value: unknown): value is McpConnectionError {
    return SwitchyardError.hasMark(value, 'McpConnectionError');
  }
}
