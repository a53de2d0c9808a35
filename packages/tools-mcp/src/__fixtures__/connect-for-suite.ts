import type { AnyWorkerAgentTool } from '@switchyard/core';
import { afterAll, beforeAll } from 'vitest';
import { type ConnectMcpServersOptions, connectMcpServers, type McpServers } from '../connect-mcp-servers';
import { createMcpTools } from '../create-mcp-tools';
import type { McpStdioServerConfig } from '../mcp-server-config';
import { calcStdioServer } from './fixture-paths';

/** The calc server over stdio as a server config; `extra` adds fields (env, strict, ...). */
export function calcStdio(extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig {
  return { command: process.execPath, args: [calcStdioServer], ...extra };
}

/**
 * Connects `servers` before the file's tests and closes them after all of them. Read `.servers`
 * and call `.tool` inside a test or hook (the servers are set once `beforeAll` has run).
 */
export function connectForSuite(servers: ConnectMcpServersOptions['servers']): {
  readonly servers: McpServers;
  /** The connected servers' tool named `name` (of whichever server has it); throws when none has. */
  tool(name: string): AnyWorkerAgentTool;
} {
  let connected: McpServers | undefined;
  beforeAll(async () => {
    connected = await connectMcpServers({ servers });
  });
  afterAll(async () => {
    await connected?.close();
  });
  const connectedServers = (): McpServers => {
    if (!connected) throw new Error('the MCP servers are connected in beforeAll: read them inside a test');
    return connected;
  };
  return {
    get servers() {
      return connectedServers();
    },
    tool(name) {
      const found = createMcpTools({ servers: connectedServers() }).find(
        (candidate) => candidate.name === name,
      );
      if (!found) throw new Error(`no tool ${name}`);
      return found;
    },
  };
}
