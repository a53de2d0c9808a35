import { describe, expect, it } from 'vitest';
import {
  medianRun,
  meets,
  mostConcurrent,
  msPer,
  parseProcStat,
  parseVmRss,
  percentile,
  perSecond,
  ratio,
  rssPerTurn,
  summariseLatency,
  verdict,
} from './daemon-stats';

describe('percentile (nearest rank)', () => {
  it('picks the value at the rank, whatever the input order', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 90)).toBe(9);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 100)).toBe(10);
  });

  it('gives the one value of a single-value list and NaN for an empty one', () => {
    expect(percentile([42], 99)).toBe(42);
    expect(percentile([], 50)).toBeNaN();
  });

  it('reaches the tail of 500 latencies at p99 (the 495th smallest)', () => {
    const values = Array.from({ length: 500 }, (_, index) => index + 1);
    expect(percentile(values, 99)).toBe(495);
  });
});

describe('rates and ratios', () => {
  it('counts per second over milliseconds', () => {
    expect(perSecond(500, 4000)).toBe(125);
    expect(perSecond(5, 0)).toBeNaN();
  });

  it('divides by a positive finite baseline only', () => {
    expect(ratio(60, 150)).toBeCloseTo(0.4, 10);
    expect(ratio(60, 0)).toBeNaN();
    expect(ratio(Number.NaN, 150)).toBeNaN();
  });
});

describe('memory per running turn', () => {
  it('shares the growth over idle between the turns that ran at once', () => {
    expect(rssPerTurn(300 * 2 ** 20, 100 * 2 ** 20, 200)).toBe(2 ** 20);
  });

  it('never goes negative when the heap shrank, and is NaN without a running turn', () => {
    expect(rssPerTurn(90, 100, 10)).toBe(0);
    expect(rssPerTurn(200, 100, 0)).toBeNaN();
  });

  it('reads VmRSS from a /proc status text, in bytes', () => {
    const status = 'Name:\tnode\nVmPeak:\t 1200000 kB\nVmRSS:\t  123456 kB\nRssAnon:\t 100000 kB\n';
    expect(parseVmRss(status)).toBe(123456 * 1024);
    expect(parseVmRss('Name:\tnode\n')).toBeUndefined();
  });
});

describe('turns running at once', () => {
  it('counts the most overlapping intervals, an end and a start at one time not overlapping', () => {
    expect(
      mostConcurrent([
        [0, 10],
        [5, 15],
        [10, 20],
        [12, 13],
      ]),
    ).toBe(3);
    expect(
      mostConcurrent([
        [0, 5],
        [5, 10],
      ]),
    ).toBe(1);
  });

  it('ignores intervals that never ran and gives 0 without any', () => {
    expect(
      mostConcurrent([
        [7, 7],
        [9, Number.NaN],
      ]),
    ).toBe(0);
    expect(mostConcurrent([])).toBe(0);
  });
});

describe('latency against the model', () => {
  it('subtracts the model time from the percentiles', () => {
    const turns = Array.from({ length: 100 }, (_, index) => 10 + index);
    expect(summariseLatency(turns, 8)).toEqual({ p50: 59, p99: 108, addedP50: 51, addedP99: 100 });
  });
});

describe('targets', () => {
  it('judges rates with at-least and times with below', () => {
    expect(meets(0.75, 0.75, 'at-least')).toBe(true);
    expect(meets(0.74, 0.75, 'at-least')).toBe(false);
    expect(meets(100, 100, 'below')).toBe(false);
    expect(meets(99, 100, 'below')).toBe(true);
    expect(meets(Number.NaN, 1, 'below')).toBe(false);
    expect(meets(1.05, 1.05, 'at-most')).toBe(true);
    expect(meets(1.06, 1.05, 'at-most')).toBe(false);
  });

  it('says by how much a target is missed', () => {
    const x = (value: number) => `${value.toFixed(2)}x`;
    expect(verdict(0.81, 0.75, 'at-least', x)).toBe('met (0.81x >= 0.75x)');
    expect(verdict(0.61, 0.75, 'at-least', x)).toBe('missed by 0.14x (0.61x, target >= 0.75x)');
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    expect(verdict(180, 100, 'below', ms)).toBe('missed by 80 ms (180 ms, target < 100 ms)');
    expect(verdict(Number.NaN, 100, 'below', ms)).toBe('not measured (target < 100 ms)');
    expect(verdict(1.03, 1.03, 'at-most', x)).toBe('met (1.03x <= 1.03x)');
    expect(verdict(1.11, 1.05, 'at-most', x)).toBe('missed by 0.06x (1.11x, target <= 1.05x)');
  });
});

describe('medianRun', () => {
  it('picks the run with the median ratio, whatever the order they ran in', () => {
    const runs = [0.74, 0.66, 0.72].map((ratio, index) => ({ ratio, index }));
    expect(medianRun(runs, (run) => run.ratio)).toEqual({ ratio: 0.72, index: 2 });
    expect(medianRun([0.8], (run) => run)).toBe(0.8);
  });

  it('takes the lower middle of an even count and refuses none', () => {
    expect(medianRun([0.9, 0.6, 0.7, 0.8], (run) => run)).toBe(0.7);
    expect(() => medianRun([], (run) => run)).toThrow('no run');
  });
});

describe('parseProcStat', () => {
  it('reads the parent and user plus system ticks, counting fields from the last parenthesis', () => {
    const line =
      '4242 (node (worker) x) S 4000 4242 4000 0 -1 4194560 9000 0 0 0 731 129 0 0 20 0 11 0 123456 1000000 20000';
    expect(parseProcStat(line)).toEqual({ ppid: 4000, cpuTicks: 860 });
  });

  it('refuses a line that is not a stat line', () => {
    expect(parseProcStat('no parenthesis here')).toBeUndefined();
    expect(parseProcStat('1 (x) S')).toBeUndefined();
  });
});

describe('msPer', () => {
  it('divides CPU time by the units, NaN without units or a finite time', () => {
    expect(msPer(900, 300)).toBe(3);
    expect(msPer(900, 0)).toBeNaN();
    expect(msPer(Number.NaN, 10)).toBeNaN();
  });
});
