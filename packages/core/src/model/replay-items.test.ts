import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { toReplayItems } from './replay-items';

const output = [
  { id: 'rs_1', type: 'reasoning', summary: [], status: 'completed' },
  {
    id: 'tsc_1',
    type: 'tool_search_call',
    arguments: { query: 'x' },
    call_id: null,
    execution: 'server',
    status: 'completed',
    created_by: 'server',
  },
  {
    id: 'fc_1',
    type: 'function_call',
    call_id: 'call_1',
    name: 'read',
    arguments: '{}',
    status: 'completed',
    namespace: 'files',
  },
] as ResponseOutputItem[];

describe('toReplayItems', () => {
  it('never mutates the output and keeps every id with store', () => {
    const before = structuredClone(output);
    const items = toReplayItems(output, { stateless: false });
    expect(output).toEqual(before);
    expect(items.map((item) => (item as { id?: string }).id)).toEqual(['rs_1', 'tsc_1', 'fc_1']);
    expect(items[1]).not.toHaveProperty('created_by');
    expect(items[0]).toEqual({ type: 'reasoning', id: 'rs_1', summary: [] });
  });

  it('stateless, drops a reasoning item without encrypted content and the ids after it', () => {
    const items = toReplayItems(output, { stateless: true });
    expect(items.map((item) => item.type)).toEqual(['tool_search_call', 'function_call']);
    expect(items.every((item) => !('id' in item))).toBe(true);
    expect(items[1]).toEqual({
      type: 'function_call',
      call_id: 'call_1',
      name: 'read',
      arguments: '{}',
      namespace: 'files',
      status: 'completed',
    });
  });
});
