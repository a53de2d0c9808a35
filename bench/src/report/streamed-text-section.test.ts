import { describe, expect, it } from 'vitest';
import type { StreamedTextResult } from '../suites/streamed-text';
import { renderStreamedTextSection } from './streamed-text-section';

const result: StreamedTextResult = {
  date: '2026-01-01T00:00:00.000Z',
  node: 'v20.20.2',
  cores: 2,
  load: [1.5, 2.5],
  turns: 200,
  textChars: 10_000,
  rounds: 3,
  rows: [
    { deltas: 1, gapMs: 0, processMs: [7.5, 7, 8], mainThreadMs: [1.5, 1.4, 1.6], failed: 0 },
    { deltas: 2001, gapMs: 0, processMs: [11, 12, 11.5], mainThreadMs: [1.6, 1.5, 1.7], failed: 0 },
    { deltas: 301, gapMs: 5, processMs: [15.5, 16, 15], mainThreadMs: [2.5, 2.6, 2.7], failed: 2 },
  ],
};

describe('renderStreamedTextSection', () => {
  it('reads each case against the answers in one delta, per case and per 1,000 extra deltas', () => {
    const text = renderStreamedTextSection(result);
    expect(text).toContain('<!-- bench:streamed-text -->');
    expect(text).toContain('200 API turns posted at once');
    expect(text).toContain(
      '| 1 | at once | all | 7.50 ms (7.50, 7.00, 8.00) | 1.50 ms (1.50, 1.40, 1.60) | - | - |',
    );
    // 11.5 - 7.5 = 4 ms over 2,000 extra deltas: 2 ms per 1,000; main thread 0.1 ms, 0.05 ms.
    expect(text).toContain(
      '| 2,001 | at once | all | 11.50 ms (11.00, 12.00, 11.50) | 1.60 ms (1.60, 1.50, 1.70) | +4.00 ms / +0.10 ms | 2.00 ms / 0.05 ms |',
    );
    expect(text).toContain('| 301 | 5 ms | 2 failed | 15.50 ms');
    expect(text).toContain('| +8.00 ms / +1.10 ms | 26.67 ms / 3.67 ms |');
  });
});
