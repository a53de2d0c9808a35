import { describe, expect, it } from 'vitest';
import { rejectionOf, thrownBy } from './index';

class MarkedError extends Error {
  static isInstance(value: unknown): value is MarkedError {
    return value instanceof Error && value.name === 'MarkedError';
  }
  constructor(readonly field: string) {
    super(`bad ${field}`);
    this.name = 'MarkedError';
  }
}

describe('thrownBy', () => {
  it('returns the marked error the call throws', () => {
    expect(
      thrownBy(() => {
        throw new MarkedError('name');
      }, MarkedError).field,
    ).toBe('name');
  });

  it('rethrows any other error as it is', () => {
    const other = new TypeError('not ours');
    expect(() =>
      thrownBy(() => {
        throw other;
      }, MarkedError),
    ).toThrow(other);
  });

  it('fails when nothing is thrown, naming the class', () => {
    expect(() => thrownBy(() => 1, MarkedError)).toThrow('expected a MarkedError, nothing was thrown');
  });
});

describe('rejectionOf', () => {
  it('returns the marked error the promise rejects with', async () => {
    expect(
      (
        await rejectionOf(async () => {
          throw new MarkedError('url');
        }, MarkedError)
      ).field,
    ).toBe('url');
  });

  it('rethrows any other rejection as it is', async () => {
    const other = new TypeError('not ours');
    await expect(rejectionOf(() => Promise.reject(other), MarkedError)).rejects.toBe(other);
  });

  it('fails when the promise resolves, naming the class', async () => {
    await expect(rejectionOf(async () => 1, MarkedError)).rejects.toThrow(
      'expected a MarkedError, nothing was thrown',
    );
  });
});
