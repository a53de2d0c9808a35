import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMcpWorkerTool } from './mcp-worker-tool';

const inputSchema = { type: 'object' as const, properties: {} };

/** The worker tool of an MCP tool with `annotations`, as a server would list it. */
function toolWith(annotations: Tool['annotations']) {
  return createMcpWorkerTool({
    server: 'ops',
    name: 'purge',
    tool: { name: 'purge', inputSchema, ...(annotations === undefined ? {} : { annotations }) },
    inputSchema,
    namespaceDescription: undefined,
    deferLoading: false,
    // Never called: these tests read the definition only.
    call: () => Promise.reject(new Error('not called')),
  });
}

describe('MCP annotations as hints', () => {
  it.each([
    ['no annotations (MCP defaults)', undefined, { isReadOnly: false, isDestructive: true }],
    ['readOnlyHint', { readOnlyHint: true }, { isReadOnly: true, isDestructive: false }],
    ['destructiveHint: false', { destructiveHint: false }, { isReadOnly: false, isDestructive: false }],
    ['destructiveHint: true', { destructiveHint: true }, { isReadOnly: false, isDestructive: true }],
    [
      'readOnlyHint with destructiveHint: true',
      { readOnlyHint: true, destructiveHint: true },
      { isReadOnly: false, isDestructive: true },
    ],
    [
      'readOnlyHint with destructiveHint: false',
      { readOnlyHint: true, destructiveHint: false },
      { isReadOnly: true, isDestructive: false },
    ],
  ] as const)('%s', (_, annotations, expected) => {
    const tool = toolWith(annotations);
    expect({ isReadOnly: tool.isReadOnly, isDestructive: tool.isDestructive }).toEqual(expected);
    expect(tool.executionMode).toBe(expected.isReadOnly ? 'parallel' : 'sequential');
  });
});
