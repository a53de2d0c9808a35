import { runToolCall } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { createTodoTool, type TodoList } from './todo-tool';

describe('update_todos', () => {
  it('replaces the list and shows it back', async () => {
    const list: TodoList = { items: [{ content: 'old', status: 'pending' }] };
    const tool = createTodoTool({ list });
    const result = await runToolCall(tool, {
      todos: [
        { content: 'read the issue', status: 'completed' },
        { content: 'write the code', status: 'in_progress' },
        { content: 'test it', status: 'pending' },
      ],
    });
    if (result.end.outcome !== 'completed') throw new Error(JSON.stringify(result));
    expect(result.end.result.isError).toBeUndefined();
    expect(result.end.result.content).toBe(
      'Todo list (1 of 3 done):\n[x] read the issue\n[~] write the code\n[ ] test it',
    );
    expect(list.items.map((item) => item.content)).toEqual(['read the issue', 'write the code', 'test it']);
  });

  it("keeps one schema object across turns' lists, so core converts it once", () => {
    const first = createTodoTool({ list: { items: [] } });
    const next = createTodoTool({ list: { items: [] } });
    expect(next).not.toBe(first);
    expect(next.schema).toBe(first.schema);
  });

  it('refuses two items in progress and keeps the old list', async () => {
    const list: TodoList = { items: [{ content: 'old', status: 'pending' }] };
    const result = await runToolCall(createTodoTool({ list }), {
      todos: [
        { content: 'a', status: 'in_progress' },
        { content: 'b', status: 'in_progress' },
      ],
    });
    // The tool's own error result: core's tool-error, nothing thrown.
    expect(result.end.outcome).toBe('tool-error');
    expect('thrown' in result).toBe(false);
    expect(result.end.result).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^2 items are in_progress/),
    });
    expect(list.items).toEqual([{ content: 'old', status: 'pending' }]);
  });
});
