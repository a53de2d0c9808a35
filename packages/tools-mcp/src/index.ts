// Any export added here is public API: keep it named, documented and deliberate.

export { createMcpTools, type McpToolsContext } from './create-mcp-tools';
