/**
 * The `mcp:` front-matter block of the calc skill the skills tests write: the calc MCP server
 * (calc-mcp-server.mjs, which a test copies into the skill's folder as server.mjs) started with
 * `node`, with one environment variable it echoes back.
 */
export const CALC_SKILL_MCP_LINES = [
  'mcp:',
  '  calc:',
  '    command: node',
  '    args: [./server.mjs]',
  '    env: { CALC_MODE: exact }',
];
