import { measureEventLoop, STALL_BOUNDS } from '@switchyard/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Candidate, nearestCandidates, normaliseWhitespace } from './nearest-candidates';
import { splitLines } from './read-file-tool';
import { TimeSlice } from './time-slice';

// The previous implementation, kept as the oracle: it rebuilt and compared every window from scratch
// (quadratic), which is what made it slow, but its answers are the specification.
function referenceCandidates(lines: readonly string[], needle: string, count = 3): Candidate[] {
  const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();
  const bigrams = (text: string) => {
    const counts = new Map<string, number>();
    for (let index = 0; index < text.length - 1; index += 1) {
      const pair = text.slice(index, index + 2);
      counts.set(pair, (counts.get(pair) ?? 0) + 1);
    }
    return counts;
  };
  const target = normalise(needle);
  if (target === '') return [];
  const window = Math.max(1, needle.replace(/\n$/, '').split('\n').length);
  const targetBigrams = bigrams(target);
  const targetSize = Math.max(0, target.length - 1);
  const candidates: Candidate[] = [];
  for (let start = 0; start < lines.length; start += 1) {
    const text = lines.slice(start, start + window).join('\n');
    const flat = normalise(text);
    if (flat === '') continue;
    const whitespaceOnly = flat === target;
    let similarity = 1;
    if (!whitespaceOnly) {
      if (flat.length < 2 || targetSize === 0) similarity = 0;
      else {
        let shared = 0;
        for (const [pair, n] of bigrams(flat)) shared += Math.min(n, targetBigrams.get(pair) ?? 0);
        similarity = (2 * shared) / (targetSize + flat.length - 1);
      }
    }
    candidates.push({ line: start + 1, similarity, text, whitespaceOnly });
  }
  candidates.sort((a, b) => b.similarity - a.similarity || a.line - b.line);
  const chosen: Candidate[] = [];
  for (const candidate of candidates) {
    if (candidate.similarity < 0.3 || chosen.length >= count) break;
    if (chosen.some((other) => Math.abs(other.line - candidate.line) < window)) continue;
    chosen.push(candidate);
  }
  return chosen;
}

describe('near-miss candidates', () => {
  it('normalises whitespace like replace(/\\s+/g, " ").trim()', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '\t', '\n', '\u00a0', '\u3000', 'b') }),
        (text) => {
          expect(normaliseWhitespace(text)).toBe(text.replace(/\s+/g, ' ').trim());
        },
      ),
    );
  });

  it('gives the same candidates as comparing every window afresh', async () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', ' ', '\t', '\n', '\n', 'é'),
      maxLength: 120,
    });
    const needle = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', ' ', '\n', 'é'),
      minLength: 1,
      maxLength: 20,
    });
    await fc.assert(
      fc.asyncProperty(text, needle, async (file, search) => {
        const ours = await nearestCandidates(file, search, new TimeSlice());
        const reference = referenceCandidates(splitLines(file), search);
        expect(ours.map((candidate) => [candidate.line, candidate.text, candidate.whitespaceOnly])).toEqual(
          reference.map((candidate) => [candidate.line, candidate.text, candidate.whitespaceOnly]),
        );
        ours.forEach((candidate, index) => {
          expect(candidate.similarity).toBeCloseTo(reference[index]?.similarity ?? -1, 5);
        });
      }),
      { numRuns: 1_500 },
    );
  });

  it('finds candidates past the first 65,536 lines (similarities are kept in blocks)', async () => {
    const lines = Array.from({ length: 140_000 }, () => 'zzz');
    lines[70_000] = 'const total = price * count;';
    lines[139_999] = 'const total = price * amount;';
    const found = await nearestCandidates(lines.join('\n'), 'const total = price * counts;', new TimeSlice());
    expect(found.map((candidate) => candidate.line)).toEqual([70_001, 140_000]);
  });

  it('finds a 1,200-line needle in a 360 KB file while timers keep running', async () => {
    const lines = Array.from({ length: 9_000 }, (_, index) => `line ${index} of the file, some text here`);
    lines.fill('   ', 4_001, 5_200);
    lines[4_000] = 'start';
    lines[5_200] = 'end';
    const file = `${lines.join('\n')}\n`;
    const {
      value: found,
      maxBusyMs,
      maxGapMs,
    } = await measureEventLoop(() =>
      nearestCandidates(file, `start${'\n'.repeat(1_200)}end`, new TimeSlice()),
    );
    expect(found[0]).toMatchObject({ line: 4_001, whitespaceOnly: true, similarity: 1 });
    // A correctness bound, not a speed target: the quadratic version held the loop for 34 s.
    if (maxBusyMs !== undefined) expect(maxBusyMs).toBeLessThan(STALL_BOUNDS.maxBusyMs);
    expect(maxGapMs).toBeLessThan(STALL_BOUNDS.maxGapMs);
  });
});
