import { describe, expect, it } from 'vitest';
import { balancedOrders, interleave, pairedRatio } from './measure';

function followCounts(orders: number[][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const order of orders) {
    for (let index = 1; index < order.length; index += 1) {
      const key = `${order[index - 1]}>${order[index]}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

describe('balancedOrders', () => {
  it.each([
    2, 4, 6, 12,
  ])('with %i contenders, each follows each other exactly once and takes every position once', (count) => {
    const orders = balancedOrders(count);
    expect(orders).toHaveLength(count);
    for (const order of orders) expect([...order].sort((a, b) => a - b)).toEqual([...Array(count).keys()]);
    for (let position = 0; position < count; position += 1) {
      expect(new Set(orders.map((order) => order[position])).size).toBe(count);
    }
    const counts = followCounts(orders);
    expect(counts.size).toBe(count * (count - 1));
    expect([...counts.values()].every((value) => value === 1)).toBe(true);
  });

  it.each([
    3, 5, 7,
  ])('with %i contenders (odd), two squares: each follows each other exactly twice', (count) => {
    const orders = balancedOrders(count);
    expect(orders).toHaveLength(2 * count);
    const counts = followCounts(orders);
    expect(counts.size).toBe(count * (count - 1));
    expect([...counts.values()].every((value) => value === 2)).toBe(true);
  });

  it('is not a plain rotation, which keeps neighbours fixed', () => {
    const rotation = Array.from({ length: 6 }, (_, round) =>
      [...Array(6).keys()].map((offset) => (round + offset) % 6),
    );
    expect([...followCounts(rotation).values()].some((value) => value > 1)).toBe(true);
    expect([...followCounts(balancedOrders(6)).values()].every((value) => value === 1)).toBe(true);
  });
});

describe('interleave', () => {
  it("records each run's marks as milliseconds from its start, only those the run reached", async () => {
    let marks: Record<string, number | undefined> = {};
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const contenders = [
      {
        name: 'marks both',
        run: async () => {
          await wait(20);
          marks.defined = performance.now();
          await wait(20);
          marks.sent = performance.now();
        },
      },
      { name: 'marks none', run: () => wait(5) },
    ];
    const timings = await interleave(contenders, {
      rounds: 2,
      warmup: 1,
      marks: {
        reset: () => {
          marks = {};
        },
        at: () => marks,
      },
    });
    const [both, none] = timings;
    expect(both?.marks.defined).toHaveLength(2);
    expect(both?.marks.sent).toHaveLength(2);
    for (const [index, defined] of (both?.marks.defined ?? []).entries()) {
      expect(defined).toBeGreaterThanOrEqual(19);
      expect(both?.marks.sent?.[index]).toBeGreaterThanOrEqual(defined + 19);
      expect(both?.marks.sent?.[index]).toBeLessThanOrEqual(both?.runs[index] ?? 0);
    }
    expect(none?.marks).toEqual({});
  });

  it('pairs a mark by round, and gives NaN when a contender did not reach it in every round', () => {
    const timings = (name: string, runs: number[], sent: number[]) => ({
      name,
      runs,
      cpu: runs,
      marks: { sent },
    });
    const subject = timings('subject', [10, 10, 10], [3, 8, 6]);
    const baseline = timings('baseline', [10, 10, 10], [2, 4, 3]);
    expect(pairedRatio(subject, baseline, { mark: 'sent' })).toBe(2);
    // Per round 1.5, 0.75 and 3: the median of the ratios, not the ratio of the medians (3 / 3).
    expect(pairedRatio(timings('subject', [10, 10, 10], [3, 3, 9]), baseline, { mark: 'sent' })).toBe(1.5);
    expect(pairedRatio(timings('partial', [10, 10, 10], [3, 8]), baseline, { mark: 'sent' })).toBeNaN();
    expect(pairedRatio(subject, baseline, { mark: 'unknown' })).toBeNaN();
  });
});
