import type { McpServers } from '@switchyard/tools-mcp';
import { visibleControls } from './progress/visible-controls';

/**
 * The start-up lines of `switchyard run` and `switchyard serve` for the MCP tools the model is not
 * offered (`task-required`, `invalid-definition`, `over-budget`), one a tool: `<prefix>: MCP tool
 * <server>.<tool> left out: <reason>`, as `switchyard tools` prints them. A server's tool names and
 * the reasons quoting them are the server's, so control characters are made visible.
 *
 * @example
 * for (const line of mcpSkippedToolLines(opened.mcp, 'switchyard')) io.stderr.write(`${line}\n`);
 */
export function mcpSkippedToolLines(mcp: McpServers | undefined, prefix: string): string[] {
  return (mcp?.skippedTools() ?? []).map((tool) =>
    visibleControls(`${prefix}: MCP tool ${tool.server}.${tool.tool} left out: ${tool.reason}`),
  );
}
