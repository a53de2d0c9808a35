// A real stdio MCP server for the tests: `add` and `echo_env` tools.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'calc', version: '1.0.0' });

server.registerTool(
  'add',
  { description: 'Add two numbers.', inputSchema: { a: z.number(), b: z.number() } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: `sum=${a + b}` }] }),
);

server.registerTool(
  'echo_env',
  { description: 'Return an environment variable of the server.', inputSchema: { name: z.string() } },
  async ({ name }) => ({ content: [{ type: 'text', text: `${name}=${process.env[name] ?? '(unset)'}` }] }),
);

await server.connect(new StdioServerTransport());
