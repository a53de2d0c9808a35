import { describe, expect, it } from 'vitest';
import { measureEventLoop, STALL_BOUNDS } from './measure-event-loop';

function spin(ms: number): number {
  const end = performance.now() + ms;
  let turns = 0;
  while (performance.now() < end) turns += 1;
  return turns;
}

describe('measureEventLoop', () => {
  it('returns what the work resolved with and sees a loop that kept turning', async () => {
    const { value, maxGapMs, elapsedMs } = await measureEventLoop(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return 'done';
    });
    expect(value).toBe('done');
    expect(elapsedMs).toBeGreaterThanOrEqual(45);
    expect(maxGapMs).toBeLessThan(STALL_BOUNDS.maxGapMs);
  });

  it.each([
    ['at the very start of the work', async () => spin(300)],
    [
      'right at its end',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return spin(300);
      },
    ],
  ])('sees a synchronous stretch %s', async (_where, work) => {
    const { maxGapMs } = await measureEventLoop(work);
    // The loop was held for at least the 300 ms of the spin (waiting for a core only adds to it).
    expect(maxGapMs).toBeGreaterThanOrEqual(290);
  });

  it('rejects as the work rejects', async () => {
    await expect(measureEventLoop(() => Promise.reject(new Error('no page')))).rejects.toThrow('no page');
  });
});
