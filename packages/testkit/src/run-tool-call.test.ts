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
    expect(call.start).toMatchObject({
      callId: 'call_7',
      params: { path: 'todo.md' },
      repairs: [],
      activity: 'Reading todo.md',
    });
    expect(call.start?.params).toEqual({ path: 'todo.md' });
    expect(call.end).toMatchObject({
      outcome: 'completed',
      activity: 'Read todo.md (16 characters)',
      repairs: [],
    });
    expect(call.end.result).toEqual({ content: 'note todo.md all' });
    expect(call.progress).toEqual([{ message: 'opening' }]);
    expect('thrown' in call).toBe(false);
  });

  it('accepts an object as the arguments', async () => {
    const call = await runToolCall(readNote, { path: 'a.md', maxLines: 3 });
    expect(call.end.outcome === 'completed' && call.end.result.content).toBe('note a.md 3');
  });

  it('returns the message the model would read for invalid or malformed arguments', async () => {
    const invalid = await runToolCall(readNote, '{"path": 5}');
    expect(invalid.end.outcome).toBe('invalid-arguments');
    expect(invalid.end.result.content).toMatch(/read_note[\s\S]*\/path: expected string/);
    expect(invalid.start).toBeUndefined();
    const malformed = await runToolCall(readNote, '{"path": "a');
    expect(malformed.end.outcome).toBe('invalid-arguments');
  });

  it("reports a throw instead of throwing, as core's tool-error with the thrown value and what the model reads", async () => {
    const call = await runToolCall(readNote, { path: 'missing.md' });
    expect(call.end.outcome).toBe('tool-error');
    expect((call.thrown as Error).message).toBe('no such note');
    expect(call.end.result.content).toBe("Tool 'read_note' failed: no such note");
  });

  it("returns the tool's own error result as core's tool-error, with the result as the tool returned it and nothing thrown", async () => {
    const refusing = paramlessTool('refusing', {
      execute: () => ({ content: 'not allowed here', isError: true }),
    });
    const call = await runToolCall(refusing, {});
    expect(call.end.outcome).toBe('tool-error');
    expect(call.end.result).toEqual({ content: 'not allowed here', isError: true });
    expect('thrown' in call).toBe(false);
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
    expect(call.end.outcome).toBe('cancelled');
    expect(call.end.result.content).toBe('cancelled: the turn was aborted while this call ran');
    // Aborted before execute could start: cancelled, and nothing ran.
    const early = await runToolCall(waits, {}, { signal: AbortSignal.abort() });
    expect(early.end.outcome).toBe('cancelled');
    expect(early.start).toBeUndefined();
  });
});

// The loop's own per-call pipeline, not a copy of it: what a turn enforces, runToolCall enforces.
describe('runToolCall runs the per-call pipeline of the loop', () => {
  it('times a call out after timeoutMs', async () => {
    const hangs = paramlessTool('hangs', { execute: () => new Promise<AgentToolResult>(() => {}) });
    const call = await runToolCall(hangs, {}, { timeoutMs: 20, abandonGraceMs: 20 });
    expect(call.end.outcome).toBe('timeout');
    const output = String(call.end.result.content);
    expect(output).toMatch(/^Tool 'hangs' timed out after 20 ms/);
    // It ignored its signal past the grace: reported abandoned, as a turn reports it.
    expect(output).toContain('abandoned');
  });

  it('refuses a result without content, as the loop does', async () => {
    const empty = paramlessTool('empty', { execute: () => ({ details: 1 }) as unknown as AgentToolResult });
    const call = await runToolCall(empty, {});
    expect(call.end.outcome).toBe('tool-error');
    expect(call.end.result.content).toBe("Tool 'empty' failed: execute returned no result with content");
    expect('thrown' in call).toBe(false);
  });

  it('caps the result and falls back to the tool name for a label that throws', async () => {
    const loud = paramlessTool('loud', {
      describeActivity: () => {
        throw new Error('label defect');
      },
      execute: () => ({ content: 'x'.repeat(10_000) }),
    });
    const call = await runToolCall(loud, {}, { maxResultBytes: 2048 });
    expect(call.end.outcome).toBe('completed');
    expect(call.start?.activity).toBe('loud');
    expect(Buffer.byteLength(String(call.end.result.content))).toBeLessThanOrEqual(2048);
    expect(call.end.result.details).toMatchObject({ resultCut: expect.any(Object) });
  });
});

describe('callTool', () => {
  const tools = [
    paramlessTool('other', { execute: () => ({ content: 'other' }) }),
    paramlessTool('refusing', { execute: () => ({ content: 'not allowed here', isError: true }) }),
    paramlessTool('empty', { execute: () => ({ details: 1 }) as unknown as AgentToolResult }),
    readNote,
  ];

  it("calls the tool of that name and returns its result, the tool's own error result included", async () => {
    expect(await callTool(tools, 'read_note', { path: 'a.md', maxLines: 2 })).toEqual({
      content: 'note a.md 2',
    });
    expect(await callTool(tools, 'refusing', {})).toEqual({ content: 'not allowed here', isError: true });
  });

  it('rejects naming the tool when there is none of that name or the call ends without a result of its own', async () => {
    await expect(callTool(tools, 'write_note', {})).rejects.toThrow('no tool named write_note');
    const threw = await callTool(tools, 'read_note', { path: 'missing.md' }).catch((error: Error) => error);
    expect((threw as Error).message).toMatch(/^read_note ended tool-error: .*no such note/);
    expect(((threw as Error).cause as Error).message).toBe('no such note');
    await expect(callTool(tools, 'read_note', { path: 5 })).rejects.toThrow(
      /^read_note ended invalid-arguments: /,
    );
    await expect(callTool(tools, 'empty', {})).rejects.toThrow(
      /^empty ended tool-error: .*execute returned no result with content/,
    );
  });
});
