import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definitionError } from '../__fixtures__/definition-error';
import type { ResponsesToolSchema } from '../schema/collect-tool-schemas';
import { defineWorkerTool } from '../tool/define-worker-tool';
import { createTurnToolSet } from './turn-tool-set';

function tool(name: string, deferLoading: boolean, namespace?: string) {
  return defineWorkerTool({
    name,
    description: `The ${name} tool.`,
    schema: z.object({}),
    ...(namespace === undefined ? {} : { namespace }),
    deferLoading,
    describeActivity: () => name,
    execute: () => ({ content: name }),
  });
}

const notes = tool('read_note', false);
const calendar = tool('create_event', true, 'calendar');
const weather = tool('forecast', true);

/** The names a request's `tools` array offers: functions, namespaces' functions, `tool_search`. */
function offered(tools: readonly ResponsesToolSchema[]): string[] {
  return tools.flatMap((entry) =>
    entry.type === 'namespace'
      ? entry.tools.map((inner) => `${entry.name}.${inner.name}`)
      : [entry.type === 'function' ? entry.name : entry.type],
  );
}

describe('a turn tool set with client-side Tool Search', () => {
  it('leaves deferred tools out until a call loads them, and collects the request tools again only then', () => {
    const set = createTurnToolSet([notes, calendar, weather], 'client');
    expect(set.toolCount).toBe(3);
    expect(set.toolSearch).toBe('client');
    const first = set.requestTools();
    expect(offered(first)).toEqual(['read_note', 'tool_search']);
    // Keys naming no deferred tool, and a call to a tool that is always sent, change nothing.
    set.loaded(['read_note', 'no_such_tool']);
    set.dispatching('read_note');
    expect(set.requestTools()).toBe(first);

    set.loaded(['calendar.create_event']);
    const second = set.requestTools();
    expect(offered(second)).toEqual(['read_note', 'calendar.create_event', 'tool_search']);
    set.loaded(['calendar.create_event']);
    expect(set.requestTools()).toBe(second);

    // A deferred tool called by its name is loaded as if it had been searched for.
    set.dispatching('forecast');
    expect(offered(set.requestTools())).toEqual([
      'read_note',
      'calendar.create_event',
      'forecast',
      'tool_search',
    ]);
  });

  it("finds every tool by its key, core's tool_search included", () => {
    const set = createTurnToolSet([notes, calendar], 'client');
    expect(set.get('calendar.create_event')).toBe(calendar);
    expect(set.get('create_event')).toBeUndefined();
    expect(set.get('tool_search')?.isReadOnly).toBe(true);
    expect([...set.keys()]).toEqual(['read_note', 'calendar.create_event', 'tool_search']);
  });

  it('refuses a tool of its own named tool_search, and two tools with one key', () => {
    const own = tool('tool_search', false);
    expect(definitionError(() => createTurnToolSet([own, weather], 'client')).field).toBe('name');
    // Without a deferred tool there is no search to clash with.
    expect(createTurnToolSet([own, notes], 'client').get('tool_search')).toBe(own);
    expect(() => createTurnToolSet([notes, tool('read_note', true)], 'native')).toThrow(/read_note/);
  });
});

describe('a turn tool set with native Tool Search', () => {
  it('sends every tool from the start, so loading changes nothing', () => {
    const set = createTurnToolSet([notes, calendar, weather], 'native');
    const first = set.requestTools();
    expect(offered(first)).toEqual(['read_note', 'calendar.create_event', 'forecast', 'tool_search']);
    set.dispatching('forecast');
    set.loaded(['calendar.create_event']);
    expect(set.requestTools()).toBe(first);
    expect([...set.keys()]).toEqual(['read_note', 'calendar.create_event', 'forecast']);
  });
});
