import { afterAll, beforeAll } from 'vitest';
import { type ConnectMcpServersOptions, connectMcpServers, type McpServers } from '../connect-mcp-servers';
import type { McpStdioServerConfig } from '../mcp-server-config';
import { calcStdioServer } from './fixture-paths';

/** The calc server over stdio as a server config; `extra` adds fields (env, strict, ...). */
export function calcStdio(extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig {
  return { command: process.execPath, args: [calcStdioServer], ...extra };
}

/**
 * Connects `servers` before the file's tests and closes them after all of them. Read `.servers`
 * inside a test or hook (it is set once `beforeAll` has run).
 */
export function connectForSuite(servers: ConnectMcpServersOptions['servers']): {
  readonly servers: McpServers;
} {
  let connected: McpServers | undefined;
  beforeAll(async () => {
    connected = await connectMcpServers({ servers });
  });
  afterAll(async () => {
    await connected?.close();
  });
  return {
    get servers() {
      if (!connected) throw new Error('the MCP servers are connected in beforeAll: read them inside a test');
      return connected;
    },
  };
}
