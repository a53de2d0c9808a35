import type { TimeSlice } from '../time-slice';
import { CHARACTERS_PER_CHECK } from './scan-constants';
import type { SimilarityBlocks } from './similarity-blocks';

/** The least similarity a window needs to be offered as a candidate. */
const MIN_SIMILARITY = 0.3;

/**
 * The starts of the `count` most similar windows, at least 30% similar, best first (the earlier of
 * two equal ones first). Overlapping windows describe the same place, so each pick excludes the
 * windows that overlap it: the same as walking a sorted list, without sorting millions of windows.
 */
export async function pickBestWindows(
  similarities: SimilarityBlocks,
  count: number,
  slice: TimeSlice,
): Promise<number[]> {
  const { windows, windowLines } = similarities;
  const chosen: number[] = [];
  while (chosen.length < count) {
    let best = -1;
    let bestSimilarity = MIN_SIMILARITY;
    for (let start = 0; start < windows; start += 1) {
      if (start % CHARACTERS_PER_CHECK === 0 && slice.due) await slice.yield();
      const similarity = similarities.get(start);
      if (similarity < bestSimilarity || (similarity === bestSimilarity && best !== -1)) continue;
      if (chosen.some((other) => Math.abs(other - start) < windowLines)) continue;
      best = start;
      bestSimilarity = similarity;
    }
    if (best === -1) break;
    chosen.push(best);
  }
  return chosen;
}
