import { collectGarbageOften } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { CallSignal } from './call-signal';

function abortedWithin(signal: AbortSignal, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('a call signal', () => {
  it('fires its time limit while garbage is collected every few milliseconds', async () => {
    const collections = collectGarbageOften({ everyMs: 2 });
    try {
      const call = new CallSignal(new AbortController().signal, 100, 'too slow');
      expect(await abortedWithin(call.signal, 3_000)).toBe(true);
      expect(call.signal.reason).toMatchObject({ name: 'TimeoutError', message: 'too slow' });
      call.dispose();
    } finally {
      collections.stop();
    }
    expect(collections.count).toBeGreaterThan(0);
  });

  it("aborts with the turn's reason, also when the turn was aborted before the call", async () => {
    const turn = new AbortController();
    const running = new CallSignal(turn.signal, undefined, 'unused');
    turn.abort(new Error('shutting down'));
    expect(running.signal.reason).toEqual(new Error('shutting down'));
    const late = new CallSignal(turn.signal, 10_000, 'unused');
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toEqual(new Error('shutting down'));
    late.dispose();
  });

  it('stops following the turn and its timer once disposed', async () => {
    const turn = new AbortController();
    const call = new CallSignal(turn.signal, 20, 'too slow');
    call.dispose();
    turn.abort(new Error('later'));
    expect(await abortedWithin(call.signal, 100)).toBe(false);
  });
});
