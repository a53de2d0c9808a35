import { thrownBy } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { WorkerConfigError } from '../config/worker-config-error';
import { resolveWaitingWorkBound } from './waiting-work-bound';

describe('the bound of waiting work (serve.maxWaitingWork)', () => {
  it('defaults to 1000, with the rest of the open-file limit for client connections', () => {
    expect(resolveWaitingWorkBound(undefined, 1_048_576)).toEqual({
      maxWaitingWork: 1000,
      maxConnections: 1_048_576 - 256 - 1000,
    });
    // Where the limit cannot be read (not Linux), nothing is checked or bounded.
    expect(resolveWaitingWorkBound(undefined, undefined)).toEqual({ maxWaitingWork: 1000 });
    expect(resolveWaitingWorkBound(50_000, undefined)).toEqual({ maxWaitingWork: 50_000 });
  });

  it('lowers the default to what a small open-file limit has room for, saying so', () => {
    expect(resolveWaitingWorkBound(undefined, 1024)).toEqual({
      maxWaitingWork: 256,
      maxConnections: 512,
      lowered:
        'serve.maxWaitingWork is 256, not 1000: this process may open 1024 files (ulimit -n); raise the limit for more',
    });
    expect(resolveWaitingWorkBound(undefined, 100).maxWaitingWork).toBe(1);
  });

  it('refuses a value that is not a whole number from 1 to 100000, or that the limit has no room for, naming the field', () => {
    for (const value of [0, -1, 1.5, 100_001, Number.NaN]) {
      const error = thrownBy(() => resolveWaitingWorkBound(value, 1_048_576), WorkerConfigError);
      expect(error.issues).toEqual([
        {
          field: 'serve.maxWaitingWork',
          message: `expected a whole number from 1 to 100000, got ${String(value)}`,
        },
      ]);
    }
    const error = thrownBy(() => resolveWaitingWorkBound(1000, 1024), WorkerConfigError);
    expect(error.issues[0]?.field).toBe('serve.maxWaitingWork');
    expect(error.issues[0]?.message).toMatch(
      /^1000 does not fit in this process's open-file limit of 1024 \(ulimit -n\).* so at most 256; lower it, or raise the limit/,
    );
    expect(resolveWaitingWorkBound(256, 1024)).toEqual({ maxWaitingWork: 256, maxConnections: 512 });
  });
});
