import { fileURLToPath } from 'node:url';

/**
 * The tools-mcp package's calc server over stdio: a real MCP server built with the SDK (its
 * `add` tool adds two numbers). Reused rather than copied so both packages test the same server.
 */
export const calcStdioServer = fileURLToPath(
  new URL('../../../../packages/tools-mcp/src/__fixtures__/calc-stdio.mjs', import.meta.url),
);
