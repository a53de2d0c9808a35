// Progress a real stdio server writes together with its result: the SDK handles the result first
// and then drops the progress it had queued, so the turn must not depend on the SDK for it.

import type { AgentEvent, ToolProgress } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { calcStdio, connectForSuite } from './__fixtures__/connect-for-suite';
import { runOnFakeModel } from './__fixtures__/run-on-fake-model';
import { CALL_CONTEXT, resultText } from './__fixtures__/tool-call';
import { createMcpTools } from './create-mcp-tools';

const suite = connectForSuite({ calc: calcStdio({ env: { CALC_ONE_WRITE_PER_TICK: '1' } }) });

/** Calls `progress_then_result` directly; its result's text and the progress reported before it ended. */
async function progressThenResult(count: number): Promise<{ text: string; progress: ToolProgress[] }> {
  const progress: ToolProgress[] = [];
  const result = await suite
    .tool('progress_then_result')
    .execute({ count }, { ...CALL_CONTEXT, reportProgress: (update) => progress.push(update) });
  return { text: resultText(result), progress };
}

describe('progress written together with the result', () => {
  it('reaches the turn although the SDK drops progress queued behind the result', async () => {
    const { text, progress } = await progressThenResult(1);
    expect(text).toBe('done after 1');
    expect(progress).toEqual([{ completed: 1, total: 1, message: 'step 1' }]);
  });

  it('passes on the first and the last of a burst (those between come within the 100 ms interval)', async () => {
    const { text, progress } = await progressThenResult(5);
    expect(text).toBe('done after 5');
    // All five arrive within a few milliseconds; a loaded machine may still let one in between pass.
    expect(progress[0]).toEqual({ completed: 1, total: 5, message: 'step 1' });
    expect(progress.at(-1)).toEqual({ completed: 5, total: 5, message: 'step 5' });
    expect(progress.length).toBeLessThan(5);
  });

  it('shows in the turn as tool-call-progress events before the call ends', async () => {
    const script = [
      { functionCalls: [{ name: 'progress_then_result', namespace: 'calc', arguments: { count: 1 } }] },
      { text: 'done' },
    ];
    const tools = createMcpTools({ servers: suite.servers });
    await runOnFakeModel({ script, tools, input: 'Go.' }, async ({ run }) => {
      const events: AgentEvent[] = [];
      for await (const event of run) events.push(event);
      const types = events.map((event) => event.type);
      const progressAt = types.indexOf('tool-call-progress');
      expect(progressAt).toBeGreaterThan(types.indexOf('tool-call-start'));
      expect(progressAt).toBeLessThan(types.indexOf('tool-call-end'));
      expect(events[progressAt]).toMatchObject({ progress: { completed: 1, total: 1, message: 'step 1' } });
    });
  });
});
