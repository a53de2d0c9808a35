// Any export added here is public API: keep it named, documented and deliberate.

export {
  type ConnectMcpServersOptions,
  connectMcpServers,
  type McpServers,
} from './connect-mcp-servers';
export { createMcpTools, type McpToolsContext } from './create-mcp-tools';
export { McpConfigurationError } from './errors/mcp-configuration-error';
export { McpConnectionError } from './errors/mcp-connection-error';
export type {
  McpHttpServerConfig,
  McpServerCommonConfig,
  McpServerConfig,
  McpStdioServerConfig,
} from './mcp-server-config';
export type { McpServerStatus, McpSkippedTool, McpSkippedToolKind } from './mcp-server-connection';
export type { McpToolCallDetails } from './mcp-tool-result';
