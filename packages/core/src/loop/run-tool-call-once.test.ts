import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool } from '../tool/define-worker-tool';
import type { AgentToolResult } from '../tool/worker-agent-tool';
import { bareTool, neverSettles } from './__fixtures__/test-tools';
import { runToolCallOnce } from './run-tool-call-once';

const readNote = defineWorkerTool({
  name: 'read_note',
  description: 'Read a note.',
  schema: z.object({ path: z.string() }),
  describeActivity: ({ path }) => `Reading ${path}`,
  describeCompletedActivity: ({ path }) => `Read ${path}`,
  execute: ({ path }, context) => {
    context.reportProgress({ message: `opening ${path} as ${context.toolCallId}` });
    return { content: `note ${path}` };
  },
});

describe('one call through the loop pipeline', () => {
  it('validates, runs and labels the call, with the events the loop emits', async () => {
    const { start, progress, end } = await runToolCallOnce(readNote, '{"path": "todo.md"}', {
      callId: 'call_7',
    });
    expect(start).toMatchObject({ type: 'tool-call-start', callId: 'call_7', params: { path: 'todo.md' } });
    expect(start?.activity).toBe('Reading todo.md');
    expect(progress).toEqual([{ message: 'opening todo.md as call_7' }]);
    expect(end).toMatchObject({
      type: 'tool-call-end',
      outcome: 'completed',
      activity: 'Read todo.md',
      isError: false,
      result: { content: 'note todo.md' },
    });
  });

  it('returns invalid arguments as the message the model reads, without running execute', async () => {
    const { start, end } = await runToolCallOnce(readNote, '{"path": 5}');
    expect(start).toBeUndefined();
    expect(end.outcome).toBe('invalid-arguments');
    expect(end.result.content).toMatch(/\/path: expected string/);
  });

  it('times a call out after toolTimeoutMs', async () => {
    const hangs = bareTool('hangs', neverSettles, 'sequential');
    const { end } = await runToolCallOnce(hangs, '{}', { toolTimeoutMs: 20, abandonGraceMs: 20 });
    expect(end.outcome).toBe('timeout');
    expect(end.result.content).toMatch(/^Tool 'hangs' timed out after 20 ms/);
    // It ignored its signal past the grace: reported abandoned, as in a turn.
    expect(end.abandoned).toBe(true);
  });

  it('checks the result shape, caps the result and falls back to the tool name for a broken label', async () => {
    const noContent = defineWorkerTool({
      ...bareTool('no_content', () => undefined as unknown as AgentToolResult, 'sequential'),
      describeActivity: () => {
        throw new Error('label defect');
      },
    });
    const shape = await runToolCallOnce(noContent, '{}');
    expect(shape.end.outcome).toBe('tool-error');
    expect(shape.end.result.content).toMatch(/returned no result with content/);
    expect(shape.start?.activity).toBe('no_content');

    const huge = bareTool('huge', () => ({ content: 'x'.repeat(10_000) }), 'sequential');
    const capped = await runToolCallOnce(huge, '{}', { maxToolResultBytes: 2048 });
    expect(capped.end.resultCut).toBeDefined();
    expect(Buffer.byteLength(String(capped.end.result.content))).toBeLessThan(10_000);
  });

  it('refuses bad options naming the option', async () => {
    await expect(runToolCallOnce(readNote, '{}', { toolTimeoutMs: 0 })).rejects.toThrow(/toolTimeoutMs/);
    await expect(runToolCallOnce(readNote, '{}', { abandonGraceMs: -1 })).rejects.toThrow(/abandonGraceMs/);
    await expect(runToolCallOnce(readNote, '{}', { maxToolResultBytes: 10 })).rejects.toThrow(
      /maxToolResultBytes/,
    );
  });
});
