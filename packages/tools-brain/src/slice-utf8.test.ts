import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sliceUtf8 } from './slice-utf8';
import { neutraliseBrainMarkers } from './untrusted-brain-content';

describe('sliceUtf8', () => {
  it('reading on from each end rebuilds the text exactly, whatever the characters and sizes', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.integer({ min: 1, max: 40 }),
        (text, size) => {
          let rebuilt = '';
          let offset = 0;
          const total = Buffer.byteLength(text, 'utf8');
          while (offset < total) {
            const slice = sliceUtf8(text, offset, size);
            expect(slice.start).toBe(offset);
            expect(slice.end).toBeGreaterThan(slice.start);
            rebuilt += slice.text;
            offset = slice.end;
          }
          expect(rebuilt).toBe(text);
        },
      ),
    );
  });

  it('moves an offset inside a character to the next character', () => {
    expect(sliceUtf8('😀x', 1, 10)).toEqual({ text: 'x', start: 4, end: 5, total: 5 });
    expect(sliceUtf8('😀x', 9, 10)).toEqual({ text: '', start: 5, end: 5, total: 5 });
  });
});

describe('neutraliseBrainMarkers on hostile text', () => {
  it('stays linear on long runs of near-markers (settles well within a generous bound)', () => {
    const hostile = `${'<'.padEnd(200_000, ' ')}${'< / untrusted - brain'.repeat(20_000)}`;
    const started = performance.now();
    expect(neutraliseBrainMarkers(hostile)).toBe(hostile);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
