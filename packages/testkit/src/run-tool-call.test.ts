import { type AgentToolResult, defineWorkerTool } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { paramlessTool } from './__fixtures__/paramless-tool';
import { callTool, runToolCall } from './run-tool-call';

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

  it('reports a throw instead of throwing, with the thrown value and what the model reads', async () => {
    const call = await runToolCall(readNote, { path: 'missing.md' });
    expect(call.status).toBe('threw');
    expect(call.status === 'threw' && (call.error as Error).message).toBe('no such note');
    expect(call.status === 'threw' && call.output).toBe("Tool 'read_note' failed: no such note");
  });

  it("returns the tool's own error result as completed, with the result as the tool returned it", async () => {
    const refusing = paramlessTool('refusing', {
      execute: () => ({ content: 'not allowed here', isError: true }),
    });
    const call = await runToolCall(refusing, {});
    expect(call.status).toBe('completed');
    expect(call.status === 'completed' && call.result).toEqual({
      content: 'not allowed here',
      isError: true,
    });
  });

  it('passes an outer signal to execute', async () => {
    const waits = paramlessTool('waits', {
      execute: (_params, context) =>
        new Promise<AgentToolResult>((_, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
        ),
    });
    const controller = new AbortController();
    let aborted = false;
    const pending = runToolCall(
      defineWorkerTool({
        ...waits,
        execute: (params, context) => {
          context.signal.addEventListener('abort', () => {
            aborted = true;
          });
          return waits.execute(params, context);
        },
      }),
      {},
      { signal: controller.signal },
    );
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const call = await pending;
    expect(aborted).toBe(true);
    expect(call.status).toBe('cancelled');
    expect(call.status === 'cancelled' && call.output).toBe(
      'cancelled: the turn was aborted while this call ran',
    );
    const early = await runToolCall(waits, {}, { signal: AbortSignal.abort() });
    expect(early.status).toBe('not-run');
  });
});

// The loop's own per-call pipeline, not a copy of it: what a turn enforces, runToolCall enforces.
describe('runToolCall runs the per-call pipeline of the loop', () => {
  it('times a call out after timeoutMs', async () => {
    const hangs = paramlessTool('hangs', { execute: () => new Promise<AgentToolResult>(() => {}) });
    const call = await runToolCall(hangs, {}, { timeoutMs: 20, abandonGraceMs: 20 });
    expect(call.status).toBe('timeout');
    const output = call.status === 'timeout' ? call.output : '';
    expect(output).toMatch(/^Tool 'hangs' timed out after 20 ms/);
    // It ignored its signal past the grace: reported abandoned, as a turn reports it.
    expect(output).toContain('abandoned');
  });

  it('refuses a result without content, as the loop does', async () => {
    const empty = paramlessTool('empty', { execute: () => ({ details: 1 }) as unknown as AgentToolResult });
    const call = await runToolCall(empty, {});
    expect(call.status).toBe('invalid-result');
  });

  it('caps the result and falls back to the tool name for a label that throws', async () => {
    const loud = paramlessTool('loud', {
      describeActivity: () => {
        throw new Error('label defect');
      },
      execute: () => ({ content: 'x'.repeat(10_000) }),
    });
    const call = await runToolCall(loud, {}, { maxResultBytes: 2048 });
    expect(call.status).toBe('completed');
    if (call.status !== 'completed') return;
    expect(call.activity).toBe('loud');
    expect(Buffer.byteLength(String(call.result.content))).toBeLessThanOrEqual(2048);
    expect(call.result.details).toMatchObject({ resultCut: expect.any(Object) });
  });
});

describe('callTool', () => {
  const tools = [paramlessTool('other', { execute: () => ({ content: 'other' }) }), readNote];

  it('calls the tool of that name and returns its result', async () => {
    expect(await callTool(tools, 'read_note', { path: 'a.md', maxLines: 2 })).toEqual({
      content: 'note a.md 2',
    });
  });

  it('rejects naming the tool when there is none of that name or the call does not complete', async () => {
    await expect(callTool(tools, 'write_note', {})).rejects.toThrow('no tool named write_note');
    await expect(callTool(tools, 'read_note', { path: 'missing.md' })).rejects.toThrow(
      /^read_note ended threw: .*no such note/,
    );
    await expect(callTool(tools, 'read_note', { path: 5 })).rejects.toThrow(
      /^read_note ended invalid-arguments: /,
    );
  });
});
