import type { AnyWorkerAgentTool } from '@switchyard/core';
import { McpConfigurationError } from './errors/mcp-configuration-error';
import { type McpServerConfig, resolveMcpServersConfig } from './mcp-server-config';
import { McpServerConnection, type McpServerStatus, type McpSkippedTool } from './mcp-server-connection';

/** What `connectMcpServers` takes. */
export interface ConnectMcpServersOptions {
  /**
   * The servers, keyed by name. The name becomes the namespace of the server's tools, so it must
   * match `^[a-zA-Z0-9_-]{1,64}$`. A server with `command` is started over stdio; one with `url` is
   * reached over streamable HTTP.
   */
  servers: Record<string, McpServerConfig>;
  /** How this client introduces itself to the servers. Default `{ name: 'switchyard', version: '0.1.0' }`. */
  clientInfo?: { name: string; version: string };
  /**
   * Entries added to every `tools/call` request's `_meta`, asked for when the call starts: a worker
   * gives the W3C `traceparent` (and `tracestate`) of the running tool call here, so the server can
   * continue its trace. Only string values are sent; a function that throws adds nothing.
   */
  callMeta?: () => Record<string, string> | undefined;
}

/** Connected MCP servers: pass them to `createMcpTools` on every turn, `close()` them at shutdown. */
export interface McpServers {
  /** The configured server names, in configuration order. */
  readonly names: readonly string[];
  /**
   * The current worker tools of every server, in configuration order and each server's own order.
   * A server's tool objects stay the same while its tool list is unchanged.
   */
  tools(): AnyWorkerAgentTool[];
  /**
   * The servers' tools left out: core refused their definition (a schema it cannot compile for
   * validation, say), the server runs them only as tasks, or a limit left them out (`over-budget`:
   * `maxTools`, `maxSchemaBytes`, `maxToolListPages`, a schema too costly to compile). The other
   * tools of the server are kept. Log these at start-up.
   */
  skippedTools(): McpSkippedTool[];
  /** Where a server stands: `connected`, `unavailable` (it died and was not restarted) or `closed`. */
  status(name: string): McpServerStatus | undefined;
  /**
   * Re-reads every connected server's tool list now. Normally unnecessary: a server's
   * `notifications/tools/list_changed` triggers it.
   */
  refresh(): Promise<void>;
  /** Closes every server (a stdio server gets its stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void>;
}

/**
 * Starts and connects every configured MCP server (concurrently) and reads its tool list.
 *
 * When a stdio server exits, the first call after that restarts it once; if it dies again, or the
 * restart fails, its tools answer with an error result saying the server is unavailable.
 *
 * Contract: throws `McpConfigurationError` naming the field for a bad configuration before starting
 * anything; throws `McpConnectionError` naming the server (first in configuration order) when a
 * server cannot be started, connected or listed, after closing the servers that did start.
 *
 * @example
 * const mcp = await connectMcpServers({
 *   servers: {
 *     calc: { command: 'node', args: ['calc-server.mjs'] },
 *     docs: { url: 'https://docs.example.com/mcp', headers: { Authorization: `Bearer ${token}` }, deferLoading: true },
 *   },
 * });
 * // every turn:
 * const tools = [...createTodoTools(ctx), ...createMcpTools({ servers: mcp })];
 * // at shutdown:
 * await mcp.close();
 */
export async function connectMcpServers(options: ConnectMcpServersOptions): Promise<McpServers> {
  const configs = resolveMcpServersConfig(
    typeof options === 'object' && options !== null ? options.servers : undefined,
  );
  const clientInfo = options.clientInfo ?? { name: 'switchyard', version: '0.1.0' };
  if (options.callMeta !== undefined && typeof options.callMeta !== 'function') {
    throw new McpConfigurationError({ field: 'callMeta', message: 'must be a function' });
  }
  const connections = [...configs].map(
    ([name, config]) => new McpServerConnection(name, config, clientInfo, options.callMeta),
  );
  const outcomes = await Promise.allSettled(connections.map((connection) => connection.open()));
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) {
    await Promise.all(connections.map((connection) => connection.close()));
    throw failure.reason;
  }
  const byName = new Map(connections.map((connection) => [connection.name, connection]));
  return {
    names: connections.map((connection) => connection.name),
    tools: () => connections.flatMap((connection) => connection.tools),
    skippedTools: () => connections.flatMap((connection) => connection.skipped),
    status: (name) => byName.get(name)?.status,
    refresh: async () => {
      await Promise.all(
        connections
          .filter((connection) => connection.status === 'connected')
          .map((connection) => connection.refreshTools()),
      );
    },
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
