import { isJsSpace } from '@switchyard/core/internal';
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

const SPACE = 32;
/** Characters scanned between looks at the clock. */
const CHARACTERS_PER_CHECK = 1 << 16;

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

  // Bigrams of the target, numbered; only these matter for the shared count.
  const targetIndex = new Map<number, number>();
  const ascii = new Int32Array(128 * 128).fill(-1);
  const targetCounts: number[] = [];
  for (let index = 0; index + 1 < target.length; index += 1) {
    const first = target.charCodeAt(index);
    const second = target.charCodeAt(index + 1);
    const key = first * 65_536 + second;
    let id = targetIndex.get(key);
    if (id === undefined) {
      id = targetCounts.length;
      targetIndex.set(key, id);
      targetCounts.push(0);
      if (first < 128 && second < 128) ascii[first * 128 + second] = id;
    }
    targetCounts[id] = (targetCounts[id] ?? 0) + 1;
  }
  const targetBigrams = Math.max(0, target.length - 1);
  const windowCounts = new Int32Array(targetCounts.length);
  let shared = 0;
  const bump = (first: number, second: number, delta: 1 | -1) => {
    const id =
      first < 128 && second < 128
        ? (ascii[first * 128 + second] ?? -1)
        : (targetIndex.get(first * 65_536 + second) ?? -1);
    if (id < 0) return;
    const wanted = targetCounts[id] ?? 0;
    if (delta > 0) {
      if ((windowCounts[id] ?? 0) < wanted) shared += 1;
      windowCounts[id] = (windowCounts[id] ?? 0) + 1;
    } else {
      windowCounts[id] = (windowCounts[id] ?? 0) - 1;
      if ((windowCounts[id] ?? 0) < wanted) shared -= 1;
    }
  };

  // The lines currently in the window, in a ring: text range and what their collapsed form starts
  // and ends with, so the bigrams across a line break can be added and removed.
  const ringSize = windowLines + 1;
  const ringStart = new Int32Array(ringSize);
  const ringEnd = new Int32Array(ringSize);
  const ringFirst = new Int32Array(ringSize);
  const ringLast = new Int32Array(ringSize);
  // Non-empty lines of the window, oldest first (a queue of line numbers).
  const queue = new Int32Array(ringSize);
  let queueHead = 0;
  let queueSize = 0;
  let windowLength = 0;
  let scanned = 0;

  // Adds (delta 1) or removes (delta -1) the bigrams inside one line, a range at a time so that a
  // 10 MB line can be scanned in stretches; the line* variables carry the scan across ranges.
  let linePrevious = -1;
  let linePendingSpace = false;
  let lineLength = 0;
  let lineFirst = -1;
  const scanRange = (from: number, to: number, delta: 1 | -1) => {
    let previous = linePrevious;
    let pendingSpace = linePendingSpace;
    let length = lineLength;
    let first = lineFirst;
    for (let index = from; index < to; index += 1) {
      const code = text.charCodeAt(index);
      if (isJsSpace(code)) {
        if (previous !== -1) pendingSpace = true;
        continue;
      }
      if (previous === -1) first = code;
      else if (pendingSpace) {
        bump(previous, SPACE, delta);
        bump(SPACE, code, delta);
        length += 1;
        pendingSpace = false;
      } else bump(previous, code, delta);
      previous = code;
      length += 1;
    }
    linePrevious = previous;
    linePendingSpace = pendingSpace;
    lineLength = length;
    lineFirst = first;
    scanned += to - from;
  };
  // Scans one line and records what its collapsed form starts and ends with; returns its collapsed
  // length. Only a line longer than one stretch is scanned asynchronously (an await per short line
  // would cost more than the scan).
  const finishLine = (slot: number): number => {
    ringFirst[slot] = lineFirst;
    ringLast[slot] = linePrevious;
    return lineLength;
  };
  const scanLine = (start: number, end: number, slot: number, delta: 1 | -1): number | Promise<number> => {
    linePrevious = -1;
    linePendingSpace = false;
    lineLength = 0;
    lineFirst = -1;
    if (end - start <= CHARACTERS_PER_CHECK) {
      scanRange(start, end, delta);
      return finishLine(slot);
    }
    return (async () => {
      for (let from = start; from < end; from += CHARACTERS_PER_CHECK) {
        scanRange(from, Math.min(end, from + CHARACTERS_PER_CHECK), delta);
        if (slice.due) await slice.yield();
      }
      return finishLine(slot);
    })();
  };

  // One similarity per window, in blocks allocated as the scan reaches them: a single array for five
  // million lines is 20 MB zero-filled at once (70 ms of page faults on the benchmark machine).
  const blocks: Float32Array[] = [];
  const similarityAt = (start: number) => blocks[start >>> 16]?.[start & 0xffff] ?? 0;
  const setSimilarity = (start: number, value: number) => {
    const index = start >>> 16;
    let block = blocks[index];
    if (block === undefined) {
      block = new Float32Array(1 << 16);
      blocks[index] = block;
    }
    block[start & 0xffff] = value;
  };
  let nextLine = 0;
  let nextOffset = 0;
  let removed = 0;
  for (let start = 0; start < totalLines; start += 1) {
    const end = Math.min(totalLines, start + windowLines);
    for (; nextLine < end; nextLine += 1) {
      const newline = text.indexOf('\n', nextOffset);
      const lineEnd = newline === -1 ? text.length : newline;
      const slot = nextLine % ringSize;
      ringStart[slot] = nextOffset;
      ringEnd[slot] = lineEnd;
      const scan = scanLine(nextOffset, lineEnd, slot, 1);
      const length = typeof scan === 'number' ? scan : await scan;
      nextOffset = lineEnd + 1;
      if (length === 0) continue;
      if (queueSize > 0) {
        const last = (queue[(queueHead + queueSize - 1) % ringSize] ?? 0) % ringSize;
        bump(ringLast[last] ?? 0, SPACE, 1);
        bump(SPACE, ringFirst[slot] ?? 0, 1);
        windowLength += 1;
      }
      queue[(queueHead + queueSize) % ringSize] = nextLine;
      queueSize += 1;
      windowLength += length;
    }
    for (; removed < start; removed += 1) {
      const slot = removed % ringSize;
      const first = ringFirst[slot] ?? -1;
      const last = ringLast[slot] ?? -1;
      if (first === -1) continue;
      const scan = scanLine(ringStart[slot] ?? 0, ringEnd[slot] ?? 0, slot, -1);
      const length = typeof scan === 'number' ? scan : await scan;
      queueHead = (queueHead + 1) % ringSize;
      queueSize -= 1;
      windowLength -= length;
      if (queueSize > 0) {
        const next = (queue[queueHead] ?? 0) % ringSize;
        bump(last, SPACE, -1);
        bump(SPACE, ringFirst[next] ?? 0, -1);
        windowLength -= 1;
      }
    }
    // Windows of short lines cost more per character than the scan: look at the clock by lines too.
    if (scanned >= CHARACTERS_PER_CHECK || start % 4_096 === 0) {
      scanned = 0;
      if (slice.due) await slice.yield();
    }
    if (queueSize > 0) {
      if (targetBigrams === 0) {
        const only = (queue[queueHead] ?? 0) % ringSize;
        setSimilarity(start, windowLength === 1 && ringFirst[only] === target.charCodeAt(0) ? 1 : 0);
      } else if (windowLength >= 2) {
        setSimilarity(start, (2 * shared) / (targetBigrams + windowLength - 1));
      }
    }
  }

  // The best windows, at least 30% similar; overlapping windows describe the same place, so each
  // pick excludes the windows that overlap it (the same as walking a sorted list, without sorting).
  const chosen: number[] = [];
  while (chosen.length < count) {
    let best = -1;
    let bestSimilarity = 0.3;
    for (let start = 0; start < totalLines; start += 1) {
      if (start % CHARACTERS_PER_CHECK === 0 && slice.due) await slice.yield();
      const similarity = similarityAt(start);
      if (similarity < bestSimilarity || (similarity === bestSimilarity && best !== -1)) continue;
      if (chosen.some((other) => Math.abs(other - start) < windowLines)) continue;
      best = start;
      bestSimilarity = similarity;
    }
    if (best === -1) break;
    chosen.push(best);
  }

  const candidates: Candidate[] = [];
  for (const start of chosen) {
    const from = await offsetOfLine(text, start + 1, slice);
    const lastStart = await offsetOfLine(text, Math.min(totalLines, start + windowLines), slice);
    const newline = text.indexOf('\n', lastStart);
    const passage = text.slice(from, newline === -1 ? text.length : newline);
    const whitespaceOnly = await equalIgnoringWhitespace(passage, target, slice);
    candidates.push({
      line: start + 1,
      similarity: whitespaceOnly ? 1 : similarityAt(start),
      text: passage,
      whitespaceOnly,
    });
  }
  return candidates;
}
