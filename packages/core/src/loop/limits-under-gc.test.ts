// The per-call time limit through the real SDK and the fake server while garbage is collected every
// few milliseconds, as on a busy worker: a limit held only weakly (a combined `AbortSignal.timeout`)
// is collected before it fires, and the call runs to its end.

import { collectGarbageOften } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { bareTool } from './__fixtures__/test-tools';

/** Sleeps `ms` unless its signal aborts first (then rejects with the reason): `sleep 8` that obeys. */
const sleep = (ms: number) =>
  bareTool('sleep', (context) => {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ content: `slept ${ms} ms` }), ms);
      context.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(context.signal.reason);
        },
        { once: true },
      );
    });
  });

describe('limits under garbage collection', () => {
  it('times a call out at its limit while garbage is collected every 2 ms', async () => {
    const collections = collectGarbageOften({ everyMs: 2 });
    try {
      const { result, events } = await runTurn(
        [{ functionCalls: [{ name: 'sleep', arguments: {} }] }, { text: 'done' }],
        { tools: [sleep(4_000)], toolTimeoutMs: 200 },
      );
      expect(result.status).toBe('completed');
      const [end] = toolCallEnds(events);
      expect(end?.outcome).toBe('timeout');
      expect(end?.result.content).toBe("Tool 'sleep' timed out after 200 ms");
      // Well before the tool's own 4 s: the limit fired, not the sleep's end.
      expect(end?.durationMs).toBeLessThan(2_000);
    } finally {
      collections.stop();
    }
    expect(collections.count).toBeGreaterThan(0);
  });
});
