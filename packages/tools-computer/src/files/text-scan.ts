// Line and occurrence scans over whole files (up to limits.maxFileBytes, 10 MiB by default), each
// linear and cut into short stretches by a TimeSlice: a file of five million short lines takes
// hundreds of milliseconds to split, which must not happen in one piece on the shared event loop.

import type { TimeSlice } from './time-slice';

/** Characters searched per window by `forEachOccurrence` before the clock is looked at. */
const SEARCH_WINDOW = 1 << 20;
/** Newlines stepped over between looks at the clock. */
const LINES_PER_CHECK = 4_096;

/** The number of lines `splitLines` would return (a final newline does not start another line). */
export async function countLines(text: string, slice: TimeSlice): Promise<number> {
  if (text === '') return 0;
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    count += 1;
    if (count % LINES_PER_CHECK === 0 && slice.due) await slice.yield();
  }
  return text.endsWith('\n') ? count : count + 1;
}

/** The offset where 1-based `line` starts, or -1 when the text has fewer lines. */
export async function offsetOfLine(text: string, line: number, slice: TimeSlice): Promise<number> {
  let offset = 0;
  for (let current = 1; current < line; current += 1) {
    const newline = text.indexOf('\n', offset);
    if (newline === -1) return -1;
    offset = newline + 1;
    if (current % LINES_PER_CHECK === 0 && slice.due) await slice.yield();
  }
  return offset < text.length ? offset : -1;
}

/** Up to `count` lines starting at 1-based `line` (fewer at the end of the text). */
export async function linesFrom(
  text: string,
  line: number,
  count: number,
  slice: TimeSlice,
): Promise<string[]> {
  const offset = await offsetOfLine(text, line, slice);
  return offset === -1 ? [] : linesOfPieces([text], offset, count, Number.POSITIVE_INFINITY, slice);
}

/** The 1-based line of each offset; `offsets` must be ascending. */
export async function lineNumbersAt(
  text: string,
  offsets: readonly number[],
  slice: TimeSlice,
): Promise<number[]> {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  let steps = 0;
  for (const offset of offsets) {
    for (
      let newline = text.indexOf('\n', scanned);
      newline !== -1 && newline < offset;
      newline = text.indexOf('\n', newline + 1)
    ) {
      line += 1;
      scanned = newline + 1;
      steps += 1;
      if (steps % LINES_PER_CHECK === 0 && slice.due) await slice.yield();
    }
    lines.push(line);
  }
  return lines;
}

/**
 * Calls `visit` with the offset of each non-overlapping occurrence of `needle`, left to right, until
 * it returns false. The text is searched one window at a time so that no single `indexOf` runs over
 * the whole file (a needle like `aaaa...ab` makes each search scan slowly).
 */
export async function forEachOccurrence(
  text: string,
  needle: string,
  slice: TimeSlice,
  visit: (offset: number) => boolean | undefined,
): Promise<void> {
  if (needle === '') return;
  let from = 0;
  let found = 0;
  while (from + needle.length <= text.length) {
    const windowEnd = Math.min(text.length, from + SEARCH_WINDOW + needle.length - 1);
    const window = text.slice(from, windowEnd);
    let nextAllowed = from;
    for (
      let local = window.indexOf(needle);
      local !== -1;
      local = window.indexOf(needle, local + needle.length)
    ) {
      if (visit(from + local) === false) return;
      nextAllowed = from + local + needle.length;
      found += 1;
      if (found % LINES_PER_CHECK === 0 && slice.due) await slice.yield();
    }
    if (windowEnd === text.length) return;
    // The next window starts at the first offset this one could not hold a whole match at, or after
    // the last match, whichever is later (matches do not overlap).
    from = Math.max(nextAllowed, windowEnd - needle.length + 1);
    if (slice.due) await slice.yield();
  }
}

/**
 * Replaces every occurrence of `needle`, returning the result in pieces (write them with
 * `writeFileInHome` as they are: joined, 10 MB took 70-140 ms in one go). The text is cut at
 * occurrences into pieces of about 1 MiB or 65,536 occurrences:
 * a piece with many occurrences is replaced with a native split and join (building it from millions
 * of small slices made garbage collections of 80 ms each), a piece with few is assembled from the
 * offsets already found (a second search of a sparse piece can be slow for needles like `aaaa...ab`).
 */
export async function replaceEvery(
  text: string,
  needle: string,
  replacement: string,
  slice: TimeSlice,
): Promise<string[]> {
  const pieces: string[] = [];
  let pieceStart = 0;
  let offsets: number[] = [];
  // A piece starts right after an occurrence (or at 0) and ends at the start of the next one, so it
  // holds exactly the occurrences the whole-text scan finds in it.
  const cut = (end: number) => {
    if (offsets.length > 1_000) {
      pieces.push(text.slice(pieceStart, end).split(needle).join(replacement));
    } else {
      const parts: string[] = [];
      let last = pieceStart;
      for (const offset of offsets) {
        parts.push(text.slice(last, offset), replacement);
        last = offset + needle.length;
      }
      parts.push(text.slice(last, end));
      pieces.push(parts.join(''));
    }
    pieceStart = end;
    offsets = [];
  };
  await forEachOccurrence(text, needle, slice, (offset) => {
    if (offset - pieceStart >= SEARCH_WINDOW || offsets.length >= 65_536) cut(offset);
    offsets.push(offset);
    return undefined;
  });
  cut(text.length);
  return pieces;
}

/**
 * Up to `count` lines of a text given in pieces, starting at the line that starts at `offset`; each
 * line keeps at most `keep` characters (enough to show it cut). The pieces are never joined.
 */
export async function linesOfPieces(
  pieces: readonly string[],
  offset: number,
  count: number,
  keep: number,
  slice: TimeSlice,
): Promise<string[]> {
  const lines: string[] = [];
  let current = '';
  let base = 0;
  let started = false;
  for (const piece of pieces) {
    if (lines.length >= count) break;
    let position = 0;
    if (!started) {
      if (offset >= base + piece.length) {
        base += piece.length;
        continue;
      }
      position = offset - base;
      started = true;
    }
    while (position < piece.length && lines.length < count) {
      const newline = piece.indexOf('\n', position);
      const end = newline === -1 ? piece.length : newline;
      if (current.length < keep)
        current += piece.slice(position, Math.min(end, position + keep - current.length));
      if (newline === -1) break;
      lines.push(current);
      current = '';
      position = newline + 1;
    }
    base += piece.length;
    if (slice.due) await slice.yield();
  }
  // The last line, when the text does not end with a newline.
  if (lines.length < count && started && current !== '') lines.push(current);
  return lines;
}
