/** A `[...]` bracket expression, parsed. */
export interface CharClass {
  negated: boolean;
  /** Inclusive code point ranges, flattened: [from0, to0, from1, to1, ...]. */
  ranges: number[];
  predicates: Array<(code: number) => boolean>;
}

const POSIX_CLASSES: Record<string, (code: number) => boolean> = {
  alnum: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  ascii: (c) => c <= 127,
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c < 32 || c === 127,
  digit: (c) => c >= 48 && c <= 57,
  graph: (c) => c > 32 && c < 127,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 32 && c < 127,
  punct: (c) => (c > 32 && c < 48) || (c > 57 && c < 65) || (c > 90 && c < 97) || (c > 122 && c < 127),
  space: (c) => c === 32 || (c >= 9 && c <= 13),
  upper: (c) => c >= 65 && c <= 90,
  word: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95,
  xdigit: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
};

/** UTF-16 units of a code point. */
export const codeLength = (code: number) => (code > 0xffff ? 2 : 1);

/**
 * Parses a `[...]` class starting at `start` (which holds `[`). Returns undefined when it is not a
 * class (no closing `]` before the end of the segment), in which case `[` is a literal.
 */
export function parseClass(text: string, start: number): { end: number; charClass: CharClass } | undefined {
  let index = start + 1;
  const charClass: CharClass = { negated: false, ranges: [], predicates: [] };
  if (text[index] === '!' || text[index] === '^') {
    charClass.negated = true;
    index += 1;
  }
  let first = true;
  while (index < text.length) {
    const char = text[index];
    if (char === '/') return undefined;
    if (char === ']' && !first) return { end: index, charClass };
    first = false;
    if (char === '[' && text[index + 1] === ':') {
      const close = text.indexOf(':]', index + 2);
      const name = close === -1 ? undefined : text.slice(index + 2, close);
      const predicate = name === undefined ? undefined : POSIX_CLASSES[name];
      if (predicate !== undefined) {
        charClass.predicates.push(predicate);
        index = close + 2;
        continue;
      }
    }
    let from: number;
    if (char === '\\' && index + 1 < text.length) index += 1;
    from = text.codePointAt(index) ?? 0;
    index += codeLength(from);
    let to = from;
    if (text[index] === '-' && index + 1 < text.length && text[index + 1] !== ']') {
      let end = index + 1;
      if (text[end] === '\\' && end + 1 < text.length) end += 1;
      if (text[end] === '/') return undefined;
      to = text.codePointAt(end) ?? 0;
      index = end + codeLength(to);
    }
    if (from > to) [from, to] = [to, from];
    charClass.ranges.push(from, to);
  }
  return undefined;
}

/** Whether `code` is in the class (or, for a negated one, not in it). */
export function classMatches(charClass: CharClass, code: number): boolean {
  let found = false;
  const { ranges } = charClass;
  for (let index = 0; index < ranges.length && !found; index += 2) {
    found = code >= (ranges[index] ?? 0) && code <= (ranges[index + 1] ?? -1);
  }
  for (let index = 0; index < charClass.predicates.length && !found; index += 1) {
    found = charClass.predicates[index]?.(code) === true;
  }
  return found !== charClass.negated;
}
