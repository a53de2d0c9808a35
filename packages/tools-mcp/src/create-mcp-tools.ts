import type { AnyWorkerAgentTool } from '@switchyard/core';

/** What `createMcpTools` needs from the turn. */
// biome-ignore lint/complexity/noBannedTypes: options arrive with this category's issue
export type McpToolsContext = {};

/**
 * Creates one namespaced tool per tool of each configured MCP server.
 *
 * Contract: returns the category's tools for one turn, in order. Until the category lands it
 * returns no tools.
 *
 * @example
 * const tools = [...createMcpTools({})];
 */
export function createMcpTools(_context: McpToolsContext): AnyWorkerAgentTool[] {
  return [];
}
