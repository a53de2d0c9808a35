import { afterEach, describe, expect, it } from 'vitest';
import { collectGarbageOften, type ForcedCollections } from './collect-garbage-often';

let collections: ForcedCollections | undefined;
afterEach(() => {
  collections?.stop();
  collections = undefined;
});

const nextTick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('collectGarbageOften', () => {
  it('collects what is only weakly held, again and again until stopped', async () => {
    let target: object | undefined = { payload: 'x'.repeat(1024) };
    const reference = new WeakRef(target);
    target = undefined;
    collections = collectGarbageOften({ everyMs: 2 });
    for (let waited = 0; reference.deref() !== undefined && waited < 2000; waited += 10) await nextTick(10);
    expect(reference.deref()).toBeUndefined();
    expect(collections.count).toBeGreaterThan(0);
    collections.stop();
    const stoppedAt = collections.count;
    await nextTick(30);
    expect(collections.count).toBe(stoppedAt);
  });

  it('names the flag when the process was started without --expose-gc', () => {
    const saved = globalThis.gc;
    globalThis.gc = undefined;
    try {
      expect(() => collectGarbageOften()).toThrow(/--expose-gc/);
    } finally {
      globalThis.gc = saved;
    }
  });

  it('refuses an interval that is not a whole number of milliseconds', () => {
    expect(() => collectGarbageOften({ everyMs: 0 })).toThrow(/everyMs/);
    expect(() => collectGarbageOften({ everyMs: 1.5 })).toThrow(/everyMs/);
  });
});
