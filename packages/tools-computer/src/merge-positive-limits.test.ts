import { thrownBy } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { ComputerToolsConfigError } from './errors/computer-tools-config-error';
import { mergePositiveLimits } from './merge-positive-limits';

interface Limits {
  maxThings: number;
  maxBytes: number;
}

const DEFAULTS: Limits = { maxThings: 10, maxBytes: 4096 };

const refusal = (run: () => unknown) => {
  const error = thrownBy(run, ComputerToolsConfigError);
  return `${error.field}: ${error.message}`;
};

describe('merging limits over their defaults', () => {
  it('keeps the defaults a caller leaves out, and takes the ones it gives', () => {
    expect(mergePositiveLimits<Limits>(undefined, DEFAULTS, { noun: 'limit' })).toEqual(DEFAULTS);
    expect(mergePositiveLimits<Limits>({ maxBytes: 8192 }, DEFAULTS, { noun: 'limit' })).toEqual({
      maxThings: 10,
      maxBytes: 8192,
    });
    expect(DEFAULTS).toEqual({ maxThings: 10, maxBytes: 4096 });
  });

  it('names the field of an unknown key, a value that is not a positive safe integer, and one under its minimum', () => {
    const merge = (given: unknown) =>
      mergePositiveLimits<Limits>(given as Partial<Limits>, DEFAULTS, {
        noun: 'Thing limit',
        minimums: { maxBytes: 1024 },
      });
    expect(refusal(() => merge('many'))).toMatch(/^limits: .*must be an object/);
    expect(refusal(() => merge({ maxThing: 3 }))).toMatch(/^limits\.maxThing: .*is not a known Thing limit/);
    for (const value of [0, -1, 1.5, 2 ** 53, '5']) {
      expect(refusal(() => merge({ maxThings: value }))).toMatch(
        /^limits\.maxThings: .*must be a positive integer/,
      );
    }
    expect(refusal(() => merge({ maxBytes: 512 }))).toMatch(
      /^limits\.maxBytes: .*must be at least 1,024, got 512/,
    );
  });
});
