import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definitionError } from '../__fixtures__/definition-error';
import { agentToolMap, toolKey } from './agent-tool-map';
import { defineWorkerTool } from './define-worker-tool';

function tool(name: string, namespace?: string) {
  return defineWorkerTool({
    name,
    description: `${name} tool`,
    schema: z.object({}),
    ...(namespace === undefined ? {} : { namespace }),
    describeActivity: () => name,
    execute: () => ({ content: name }),
  });
}

describe('agentToolMap', () => {
  it('keys plain tools by name and namespaced ones by namespace.name', () => {
    const add = tool('add', 'calc');
    const read = tool('read');
    const map = agentToolMap([add, read]);
    expect([...map.keys()]).toEqual(['calc.add', 'read']);
    expect(map.get(toolKey({ name: 'add', namespace: 'calc' }))).toBe(add);
    expect(map.get('add')).toBeUndefined();
  });

  it('allows one name in two namespaces', () => {
    expect(agentToolMap([tool('add', 'a'), tool('add', 'b'), tool('add')]).size).toBe(3);
  });

  it('throws naming both positions for a duplicate key', () => {
    const error = definitionError(() => agentToolMap([tool('read'), tool('write'), tool('read')]));
    expect(error.message).toMatch(/duplicate tool key 'read'.*positions 0 and 2/);
  });
});
