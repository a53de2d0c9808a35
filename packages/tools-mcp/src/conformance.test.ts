import { runToolCall } from '@switchyard/testkit';
import { describeToolCategory } from '@switchyard/testkit/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcStdioServer } from './__fixtures__/fixture-paths';
import { connectMcpServers, type McpServers } from './connect-mcp-servers';
import { createMcpTools } from './create-mcp-tools';

let servers: McpServers;

beforeAll(async () => {
  servers = await connectMcpServers({
    servers: { calc: { command: process.execPath, args: [calcStdioServer] } },
  });
});

afterAll(async () => {
  await servers?.close();
});

describeToolCategory('MCP tools', () => createMcpTools({ servers }), {
  samples: { 'calc.add': [{ a: 2, b: 3 }], 'calc.fail': [{ reason: 'sample' }] },
  skipExecute: {
    'calc.crash': 'exits the server process; covered by server-failures.test.ts',
    'calc.slow': 'runs until cancelled; covered by the abort tests in create-mcp-tools.test.ts',
    'calc.grow': 'changes the tool list; covered by create-mcp-tools.test.ts',
  },
});

describe('arguments through the ladder', () => {
  function add() {
    const tool = createMcpTools({ servers }).find((candidate) => candidate.name === 'add');
    if (!tool) throw new Error('no add tool');
    return tool;
  }

  it('validates against the live jsonSchema, bounds included, before the server sees the call', async () => {
    const call = await runToolCall(add(), '{"a": 2000, "b": 1}');
    expect(call.status).toBe('invalid-arguments');
    expect(call.status === 'invalid-arguments' && call.error).toMatch(/1000/);
  });

  it('runs a valid call with its labels', async () => {
    const call = await runToolCall(add(), '{"a": 2, "b": 3}');
    expect(call).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: '5' }] },
      activity: 'Calling calc.add',
      completedActivity: 'Called calc.add',
    });
  });
});
