import type { TimeSlice } from '../time-slice';
import { CollapsedLineScanner } from './collapsed-line-scanner';
import { LineWindow } from './line-window';
import { CHARACTERS_PER_CHECK } from './scan-constants';
import { SharedBigrams } from './shared-bigrams';
import { SimilarityBlocks } from './similarity-blocks';

/** Window starts between looks at the clock, however short their lines. */
const WINDOWS_PER_CHECK = 4_096;

/**
 * The bigram (Dice) similarity to `target` (whitespace already collapsed) of every window of
 * `windowLines` lines of `text`, whitespace collapsed, by the line the window starts at. Linear in
 * the size of the text and the target: the window slides one line at a time and only the bigrams
 * entering and leaving it are counted.
 */
export async function windowSimilarities(
  text: string,
  target: string,
  windowLines: number,
  totalLines: number,
  slice: TimeSlice,
): Promise<SimilarityBlocks> {
  const bigrams = new SharedBigrams(target);
  const scanner = new CollapsedLineScanner(text, bigrams, slice);
  const window = new LineWindow(text, windowLines, bigrams, scanner);
  const similarities = new SimilarityBlocks(totalLines, windowLines);
  for (let start = 0; start < totalLines; start += 1) {
    const end = Math.min(totalLines, start + windowLines);
    // Awaited only when a line was scanned in stretches: an await per line would cost more than the scan.
    while (window.pushed < end) {
      const pending = window.pushLine();
      if (pending !== undefined) await pending;
    }
    while (window.shifted < start) {
      const pending = window.shiftLine();
      if (pending !== undefined) await pending;
    }
    // Windows of short lines cost more per character than the scan: look at the clock by windows too.
    if (scanner.scanned >= CHARACTERS_PER_CHECK || start % WINDOWS_PER_CHECK === 0) {
      scanner.scanned = 0;
      if (slice.due) await slice.yield();
    }
    if (window.isEmpty) continue;
    if (bigrams.total === 0) {
      // A one-character target has no bigram: only a window of that one character is like it.
      similarities.set(start, window.length === 1 && window.oldestFirst === target.charCodeAt(0) ? 1 : 0);
    } else if (window.length >= 2) {
      similarities.set(start, (2 * bigrams.shared) / (bigrams.total + window.length - 1));
    }
  }
  return similarities;
}
