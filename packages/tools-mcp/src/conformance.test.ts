import { runToolCall } from '@switchyard/testkit';
import { describeToolCategory } from '@switchyard/testkit/conformance';
import { describe, expect, it } from 'vitest';
import { calcStdio, connectForSuite } from './__fixtures__/connect-for-suite';
import { createMcpTools } from './create-mcp-tools';

const suite = connectForSuite({ calc: calcStdio() });

describeToolCategory('MCP tools', () => createMcpTools({ servers: suite.servers }), {
  samples: { 'calc.add': [{ a: 2, b: 3 }], 'calc.fail': [{ reason: 'sample' }] },
  skipExecute: {
    'calc.crash': 'exits the server process; covered by server-failures.test.ts',
    'calc.slow': 'runs until cancelled; covered by the abort tests in create-mcp-tools.test.ts',
    'calc.grow': 'changes the tool list; covered by create-mcp-tools.test.ts',
  },
});

describe('arguments through the ladder', () => {
  function add() {
    const tool = createMcpTools({ servers: suite.servers }).find((candidate) => candidate.name === 'add');
    if (!tool) throw new Error('no add tool');
    return tool;
  }

  it('validates against the live jsonSchema, bounds included, before the server sees the call', async () => {
    const call = await runToolCall(add(), '{"a": 2000, "b": 1}');
    expect(call.end.outcome).toBe('invalid-arguments');
    expect(call.end.result.content).toMatch(/1000/);
  });

  it('runs a valid call with its labels', async () => {
    const call = await runToolCall(add(), '{"a": 2, "b": 3}');
    expect(call).toMatchObject({
      start: { activity: 'Calling calc.add' },
      end: {
        outcome: 'completed',
        result: { content: [{ type: 'text', text: '5' }] },
        activity: 'Called calc.add',
      },
    });
  });
});
