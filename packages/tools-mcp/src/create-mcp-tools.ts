import type { AnyWorkerAgentTool } from '@switchyard/core';
import type { McpServers } from './connect-mcp-servers';
import { McpConfigurationError } from './errors/mcp-configuration-error';

/** What `createMcpTools` needs from the turn. */
export interface McpToolsContext {
  /** The servers connected once with `connectMcpServers` (not their configuration). */
  servers: McpServers;
}

/**
 * Creates the turn's MCP tools: one namespaced tool per tool of each connected server, with the
 * server's live `inputSchema` as `jsonSchema` (unchanged), the server name as `namespace`, and
 * `deferLoading` as configured. Cheap: it returns the tool objects the connections already hold,
 * so core's per-tool schema cache stays warm across turns.
 *
 * Contract: returns the tools in configuration order; throws `McpConfigurationError` (field
 * `servers`) when `servers` is not what `connectMcpServers` returned. Calls never throw: a server
 * error, a timeout, an abort or a server that died become `isError` results.
 *
 * @example
 * const mcp = await connectMcpServers({ servers: { calc: { command: 'node', args: ['calc.mjs'] } } });
 * const tools = [...createComputerTools(ctx), ...createMcpTools({ servers: mcp })];
 */
export function createMcpTools(context: McpToolsContext): AnyWorkerAgentTool[] {
  const servers = (context as { servers?: unknown } | undefined)?.servers;
  if (
    typeof servers !== 'object' ||
    servers === null ||
    typeof (servers as McpServers).tools !== 'function'
  ) {
    throw new McpConfigurationError({
      field: 'servers',
      message:
        'must be the connected servers returned by `await connectMcpServers({ servers: config })`, not their configuration',
    });
  }
  return (servers as McpServers).tools();
}
