import { describe, expect, it } from 'vitest';
import { balancedOrders } from './measure';

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
