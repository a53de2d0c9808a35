import { describe, expect, it } from 'vitest';
import { paramlessTool } from './__fixtures__/paramless-tool';
import { createTestToolContext } from './index';

describe('createTestToolContext', () => {
  it('records progress and aborts through its controller', async () => {
    const tool = paramlessTool('count', {
      execute: (_params, context) => {
        for (let completed = 1; completed <= 3; completed += 1)
          context.reportProgress({ completed, total: 3 });
        return { content: String(context.signal.aborted) };
      },
    });
    const context = createTestToolContext({ toolCallId: 'call_9' });
    expect(await tool.execute({}, context)).toEqual({ content: 'false' });
    expect(context.progress.map((report) => report.completed)).toEqual([1, 2, 3]);
    context.controller.abort();
    expect(context.signal.aborted).toBe(true);
    expect(context.toolCallId).toBe('call_9');
  });

  it('follows an outer signal', () => {
    const outer = new AbortController();
    const context = createTestToolContext({ signal: outer.signal });
    outer.abort();
    expect(context.signal.aborted).toBe(true);
  });
});
