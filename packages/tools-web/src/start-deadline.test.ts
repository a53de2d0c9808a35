import { collectGarbageOften, type ForcedCollections } from '@switchyard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeadline } from './start-deadline';

let collections: ForcedCollections | undefined;
afterEach(() => {
  collections?.stop();
  collections = undefined;
});

/** Resolves with the signal's reason when it aborts, or with 'not aborted' after `ms`. */
function abortedWithin(signal: AbortSignal, ms: number): Promise<unknown> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('not aborted'), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(signal.reason);
    });
  });
}

describe('startDeadline', () => {
  it('fires under collections every few milliseconds, held only by its timer and a listener', async () => {
    collections = collectGarbageOften();
    // As fetch holds it: only its signal, only through a listener.
    const fired = abortedWithin(startDeadline(200).signal, 5_000);
    const reason = await fired;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
    expect((reason as DOMException).message).toBe('the time limit of 200 ms ran out');
    expect(collections.count).toBeGreaterThan(0);
  });

  it("aborts with the parent's reason when the parent aborts first, and is not timed out", async () => {
    const parent = new AbortController();
    const deadline = startDeadline(10_000, parent.signal);
    const reason = new Error('turn cancelled');
    parent.abort(reason);
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline.timedOut).toBe(false);
    deadline.clear();
  });

  it('is aborted at once by an already aborted parent', () => {
    const reason = new Error('gone');
    const deadline = startDeadline(10_000, AbortSignal.abort(reason));
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe(reason);
  });

  it('says it timed out when the time ran out, whatever the parent does later', async () => {
    const parent = new AbortController();
    const deadline = startDeadline(20, parent.signal);
    await abortedWithin(deadline.signal, 5_000);
    expect(deadline.timedOut).toBe(true);
    parent.abort(new Error('later'));
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('never fires once cleared, and lets go of the parent', async () => {
    const parent = new AbortController();
    const deadline = startDeadline(20, parent.signal);
    deadline.clear();
    deadline.clear();
    expect(await abortedWithin(deadline.signal, 200)).toBe('not aborted');
    parent.abort(new Error('after the work ended'));
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.timedOut).toBe(false);
  });
});
