import { isJsSpace } from '@switchyard/core/internal';
import { pickBestWindows } from './nearest/pick-best-windows';
import { CHARACTERS_PER_CHECK, SPACE } from './nearest/scan-constants';
import { windowSimilarities } from './nearest/window-similarities';
import { countLines, offsetOfLine } from './text-scan';
import type { TimeSlice } from './time-slice';

/** A place in a file that resembles a string that was not found. */
export interface Candidate {
  /** First line of the candidate (1-based). */
  line: number;
  /** Similarity from 0 to 1 (whitespace ignored). */
  similarity: number;
  /** The candidate text as it is in the file. */
  text: string;
  /** The candidate equals the searched string except for whitespace. */
  whitespaceOnly: boolean;
}

/** Collapses every run of whitespace to one space and trims, in one pass. */
export function normaliseWhitespace(text: string): string {
  const words: string[] = [];
  let start = -1;
  for (let index = 0; index <= text.length; index += 1) {
    const space = index === text.length || isJsSpace(text.charCodeAt(index));
    if (space && start !== -1) {
      words.push(text.slice(start, index));
      start = -1;
    } else if (!space && start === -1) start = index;
  }
  return words.join(' ');
}

/**
 * Whether `text` collapses to `target` (already collapsed), comparing as it goes: a candidate passage
 * can be megabytes long, and most differ from the target within a few characters.
 */
async function equalIgnoringWhitespace(text: string, target: string, slice: TimeSlice): Promise<boolean> {
  let at = 0;
  let pendingSpace = false;
  for (let index = 0; index < text.length; index += 1) {
    if (index % CHARACTERS_PER_CHECK === 0 && slice.due) await slice.yield();
    const code = text.charCodeAt(index);
    if (isJsSpace(code)) {
      pendingSpace = at > 0;
      continue;
    }
    if (pendingSpace) {
      if (target.charCodeAt(at) !== SPACE) return false;
      at += 1;
      pendingSpace = false;
    }
    if (target.charCodeAt(at) !== code) return false;
    at += 1;
  }
  return at === target.length;
}

/**
 * Finds the passages of `text` most similar to `needle`: every window of as many lines as the
 * needle has, compared by bigram (Dice) similarity with whitespace collapsed.
 *
 * Linear in the size of the file and the needle: the windows slide one line at a time and only the
 * bigrams entering and leaving a window are counted (comparing every window with the needle afresh
 * was quadratic, 34 s for a 1,200-line needle on a 360 KB file). Every file line is looked at, in
 * stretches cut by `slice`.
 */
export async function nearestCandidates(
  text: string,
  needle: string,
  slice: TimeSlice,
  count = 3,
): Promise<Candidate[]> {
  const target = normaliseWhitespace(needle);
  if (target === '') return [];
  const windowLines = Math.max(1, (await countLines(needle, slice)) || 1);
  const totalLines = await countLines(text, slice);
  if (totalLines === 0) return [];
  const similarities = await windowSimilarities(text, target, windowLines, totalLines, slice);
  const candidates: Candidate[] = [];
  for (const start of await pickBestWindows(similarities, count, slice)) {
    const from = await offsetOfLine(text, start + 1, slice);
    const lastStart = await offsetOfLine(text, Math.min(totalLines, start + windowLines), slice);
    const newline = text.indexOf('\n', lastStart);
    const passage = text.slice(from, newline === -1 ? text.length : newline);
    const whitespaceOnly = await equalIgnoringWhitespace(passage, target, slice);
    candidates.push({
      line: start + 1,
      similarity: whitespaceOnly ? 1 : similarities.get(start),
      text: passage,
      whitespaceOnly,
    });
  }
  return candidates;
}
