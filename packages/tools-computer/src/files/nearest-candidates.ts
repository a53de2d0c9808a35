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

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

function bigrams(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index < text.length - 1; index += 1) {
    const pair = text.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return counts;
}

function dice(a: Map<string, number>, aSize: number, b: string): number {
  if (b.length < 2 || aSize === 0) return 0;
  const other = bigrams(b);
  let shared = 0;
  for (const [pair, count] of other) shared += Math.min(count, a.get(pair) ?? 0);
  return (2 * shared) / (aSize + b.length - 1);
}

/**
 * Finds the passages of `lines` most similar to `needle`, comparing windows of as many lines as the
 * needle has (bigram similarity, whitespace collapsed). Looks at the first `maxLines` lines only.
 */
export function nearestCandidates(
  lines: readonly string[],
  needle: string,
  count = 3,
  maxLines = 20_000,
): Candidate[] {
  const target = normalise(needle);
  if (target === '') return [];
  const window = Math.max(1, needle.replace(/\n$/, '').split('\n').length);
  const targetBigrams = bigrams(target);
  const targetSize = Math.max(0, target.length - 1);
  const candidates: Candidate[] = [];
  const last = Math.min(lines.length, maxLines);
  for (let start = 0; start < last; start += 1) {
    const text = lines.slice(start, start + window).join('\n');
    const flat = normalise(text);
    if (flat === '') continue;
    const whitespaceOnly = flat === target;
    const similarity = whitespaceOnly ? 1 : dice(targetBigrams, targetSize, flat);
    candidates.push({ line: start + 1, similarity, text, whitespaceOnly });
  }
  candidates.sort((a, b) => b.similarity - a.similarity || a.line - b.line);
  const chosen: Candidate[] = [];
  for (const candidate of candidates) {
    if (candidate.similarity < 0.3 || chosen.length >= count) break;
    // Overlapping windows describe the same place; keep the best of them.
    if (chosen.some((other) => Math.abs(other.line - candidate.line) < window)) continue;
    chosen.push(candidate);
  }
  return chosen;
}
