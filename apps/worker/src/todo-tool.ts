import { type AnyWorkerAgentTool, defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';

/** One item of the worker's planning list. */
export interface TodoItem {
  /** What to do, one line. */
  content: string;
  /** Where it stands. */
  status: 'pending' | 'in_progress' | 'completed';
}

/** The planning list of one turn (or one agent, if the caller keeps it across turns). */
export interface TodoList {
  /** The items, in order. */
  items: TodoItem[];
}

/** Most items on the list. */
export const MAX_TODO_ITEMS = 30;

const MARKS: Record<TodoItem['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

function render(items: readonly TodoItem[]): string {
  if (items.length === 0) return 'The todo list is empty.';
  const done = items.filter((item) => item.status === 'completed').length;
  return [
    `Todo list (${done} of ${items.length} done):`,
    ...items.map((item) => `${MARKS[item.status]} ${item.content}`),
  ].join('\n');
}

// Module level: the tool is composed on every turn, and core converts a schema once per schema object.
const todoSchema = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().describe('The step, one short line'),
        status: z.enum(['pending', 'in_progress', 'completed']),
      }),
    )
    .describe('The whole list, in order'),
});

/**
 * The worker's own small planning tool, `update_todos`: the model writes its whole plan (each item
 * pending, in progress or completed) and gets the list back. It touches nothing outside `list`.
 *
 * Contract: a list with more than one item in progress, or more than `MAX_TODO_ITEMS` items, is
 * refused as an `isError` result and `list` is left unchanged.
 *
 * @example
 * const todos: TodoList = { items: [] };
 * const tools = [createTodoTool({ list: todos }), ...createComputerTools({ home })];
 */
export function createTodoTool(context: { list: TodoList }): AnyWorkerAgentTool {
  const { list } = context;
  if (typeof list !== 'object' || list === null || !Array.isArray(list.items)) {
    throw new TypeError('list: must be a TodoList ({ items: [] })');
  }
  return defineWorkerTool({
    name: 'update_todos',
    description:
      'Write your plan for this task as a todo list, replacing the previous one. Use it for work of three or ' +
      'more steps: list every step, mark the one you are on in_progress (one at a time) and mark steps ' +
      'completed as soon as they are done. Returns the list.',
    schema: todoSchema,
    executionMode: 'sequential',
    describeActivity: ({ todos }) => `Updating the todo list (${todos.length} items)`,
    describeCompletedActivity: ({ todos }, result) =>
      result.isError === true
        ? 'Todo list unchanged'
        : `Todo list: ${todos.filter((item) => item.status === 'completed').length} of ${todos.length} done`,
    execute: ({ todos }) => {
      if (todos.length > MAX_TODO_ITEMS) {
        return { content: `A todo list holds at most ${MAX_TODO_ITEMS} items; merge steps.`, isError: true };
      }
      const active = todos.filter((item) => item.status === 'in_progress').length;
      if (active > 1) {
        return {
          content: `${active} items are in_progress: keep exactly one in progress at a time. The list was not changed.`,
          isError: true,
        };
      }
      const empty = todos.findIndex((item) => item.content.trim() === '');
      if (empty !== -1) return { content: `Item ${empty} has no content.`, isError: true };
      list.items = todos.map((item) => ({ content: item.content.trim(), status: item.status }));
      return { content: render(list.items), details: { items: list.items } };
    },
  });
}
