import { type AgentToolResult, defineWorkerTool } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolCall } from './run-tool-call';

const readNote = defineWorkerTool({
  name: 'read_note',
  description: 'Read a note.',
  schema: z.object({ path: z.string(), maxLines: z.number().int().optional() }),
  describeActivity: ({ path }) => `Reading ${path}`,
  describeCompletedActivity: ({ path }, result) =>
    `Read ${path} (${String(result.content).length} characters)`,
  execute: ({ path, maxLines }, context) => {
    context.reportProgress({ message: 'opening' });
    if (path === 'missing.md') throw new Error('no such note');
    return { content: `note ${path} ${maxLines ?? 'all'}` };
  },
});

describe('runToolCall', () => {
  it('validates, runs and labels one call', async () => {
    const call = await runToolCall(readNote, '{"path": "todo.md", "maxLines": null}', {
      toolCallId: 'call_7',
    });
    expect(call).toEqual({
      status: 'completed',
      params: { path: 'todo.md' },
      repairs: [],
      result: { content: 'note todo.md all' },
      activity: 'Reading todo.md',
      completedActivity: 'Read todo.md (16 characters)',
      progress: [{ message: 'opening' }],
    });
  });

  it('accepts an object as the arguments', async () => {
    const call = await runToolCall(readNote, { path: 'a.md', maxLines: 3 });
    expect(call.status === 'completed' && call.result.content).toBe('note a.md 3');
  });

  it('returns the message the model would read for invalid or malformed arguments', async () => {
    const invalid = await runToolCall(readNote, '{"path": 5}');
    expect(invalid.status).toBe('invalid-arguments');
    expect(invalid.status === 'invalid-arguments' && invalid.error).toMatch(
      /read_note[\s\S]*\/path: expected string/,
    );
    const malformed = await runToolCall(readNote, '{"path": "a');
    expect(malformed.status).toBe('invalid-arguments');
  });

  it('reports a throw instead of throwing', async () => {
    const call = await runToolCall(readNote, { path: 'missing.md' });
    expect(call.status).toBe('threw');
    expect(call.status === 'threw' && (call.error as Error).message).toBe('no such note');
  });

  it('passes an outer signal to execute', async () => {
    const waits = defineWorkerTool({
      name: 'waits',
      description: 'Waits for abort.',
      schema: z.object({}),
      describeActivity: () => 'Waiting',
      execute: (_params, context) =>
        new Promise<AgentToolResult>((_, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
        ),
    });
    const controller = new AbortController();
    const pending = runToolCall(waits, {}, { signal: controller.signal });
    controller.abort();
    const call = await pending;
    expect(call.status === 'threw' && (call.error as Error).message).toBe('stopped');
  });
});
