import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitLines } from './read-file-tool';
import {
  countLines,
  forEachOccurrence,
  lineNumbersAt,
  linesFrom,
  linesOfPieces,
  offsetOfLine,
  replaceEvery,
} from './text-scan';
import { TimeSlice } from './time-slice';

function naiveOccurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) {
    found.push(index);
  }
  return found;
}

async function occurrences(text: string, needle: string): Promise<number[]> {
  const found: number[] = [];
  await forEachOccurrence(text, needle, new TimeSlice(), (offset) => {
    found.push(offset);
    return undefined;
  });
  return found;
}

const smallText = fc.string({ unit: fc.constantFrom('a', 'b', '\n'), maxLength: 60 });

describe('line scans', () => {
  it('count, locate and number lines as splitLines does', async () => {
    await fc.assert(
      fc.asyncProperty(smallText, fc.integer({ min: 1, max: 30 }), async (text, line) => {
        const slice = new TimeSlice();
        const lines = splitLines(text);
        expect(await countLines(text, slice)).toBe(lines.length);
        expect(await linesFrom(text, line, 3, slice)).toEqual(lines.slice(line - 1, line + 2));
        const offset = await offsetOfLine(text, line, slice);
        expect(offset === -1 ? undefined : text.slice(offset).split('\n')[0]).toBe(lines[line - 1]);
        const offsets = naiveOccurrences(text, 'b');
        expect(await lineNumbersAt(text, offsets, slice)).toEqual(
          offsets.map((at) => text.slice(0, at).split('\n').length),
        );
      }),
    );
  });
});

describe('lines of a text in pieces', () => {
  it('gives the lines splitLines gives, cut to the kept length, whatever the cuts', async () => {
    await fc.assert(
      fc.asyncProperty(
        smallText,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 4 }),
        async (text, cuts, line, keep) => {
          const positions = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...positions].map((from, index) =>
            text.slice(from, positions[index] ?? text.length),
          );
          const slice = new TimeSlice();
          const offset = await offsetOfLine(text, line, slice);
          fc.pre(offset !== -1);
          expect(await linesOfPieces(pieces, offset, 3, keep, slice)).toEqual(
            splitLines(text)
              .slice(line - 1, line + 2)
              .map((value) => value.slice(0, keep)),
          );
        },
      ),
    );
  });
});

describe('occurrences', () => {
  it('finds the same non-overlapping occurrences as an indexOf loop', async () => {
    await fc.assert(
      fc.asyncProperty(
        smallText,
        fc.string({ unit: fc.constantFrom('a', 'b', '\n'), minLength: 1, maxLength: 4 }),
        async (text, needle) => {
          expect(await occurrences(text, needle)).toEqual(naiveOccurrences(text, needle));
          expect((await replaceEvery(text, needle, '<>', new TimeSlice())).join('')).toBe(
            text.split(needle).join('<>'),
          );
        },
      ),
    );
  });

  it('finds occurrences that straddle its 1 MiB search windows, and stops when told', async () => {
    const needle = 'abcabd';
    const text = 'x'.repeat(3 * (1 << 20) + 17).split('');
    const planted = [
      0,
      (1 << 20) - 3,
      (1 << 20) - 2 + 6,
      2 * (1 << 20) - 6,
      2 * (1 << 20) + 1,
      3 * (1 << 20) + 11,
    ];
    for (const at of planted) text.splice(at, needle.length, ...needle);
    const joined = text.join('');
    expect(await occurrences(joined, needle)).toEqual(naiveOccurrences(joined, needle));
    expect(await occurrences(joined, needle)).toHaveLength(planted.length);
    expect((await replaceEvery(joined, needle, '<>', new TimeSlice())).join('')).toBe(
      joined.split(needle).join('<>'),
    );
    const dense = `${'ab'.repeat(1 << 20)}abcabd${'ab'.repeat(1 << 20)}`;
    expect((await replaceEvery(dense, 'ab', 'x', new TimeSlice())).join('')).toBe(
      dense.split('ab').join('x'),
    );
    let seen = 0;
    await forEachOccurrence(joined, needle, new TimeSlice(), () => {
      seen += 1;
      return seen < 2 ? undefined : false;
    });
    expect(seen).toBe(2);
  });

  it('replaces five million occurrences in stretches, keeping the event loop free', async () => {
    const text = 'a\n'.repeat(5_000_000);
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 1);
    const replaced = (await replaceEvery(text, 'a', 'bb', new TimeSlice())).join('');
    clearInterval(timer);
    expect(replaced.length).toBe(15_000_000);
    expect(replaced.startsWith('bb\nbb\n')).toBe(true);
    expect(ticks).toBeGreaterThan(1);
  });
});
