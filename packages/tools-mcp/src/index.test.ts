import { describePublicApi } from '@switchyard/test-support';
import * as publicApi from './index';

describePublicApi('@switchyard/tools-mcp', {
  source: new URL('./index.ts', import.meta.url),
  module: publicApi,
  runtime: ['McpConfigurationError', 'McpConnectionError', 'connectMcpServers', 'createMcpTools'],
  types: [
    'ConnectMcpServersOptions',
    'McpHttpServerConfig',
    'McpServerCommonConfig',
    'McpServerConfig',
    'McpServerStatus',
    'McpServers',
    'McpSkippedTool',
    'McpSkippedToolKind',
    'McpStdioServerConfig',
    'McpToolCallDetails',
    'McpToolsContext',
  ],
});
