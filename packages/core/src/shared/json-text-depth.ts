/**
 * The index of the quote that closes the JSON string opened at `open` (one not escaped: preceded by
 * an even number of backslashes), or -1 when the text ends first. Found with `indexOf`, so a long
 * string costs little.
 */
export function closingQuoteOf(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === 92) backslashes += 1;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

/**
 * Whether the JSON text `text` nests objects and arrays deeper than `maxDepth`, found in one pass
 * over it before anything parses it: brackets inside strings do not count (each string is skipped
 * with `indexOf`, so long strings cost little). `JSON.parse` of deeply nested text takes time that
 * grows faster than its length (4 MB nested 2,000,000 deep: 0.9 s), and what it builds overflows the
 * stack of whatever copies it next. Text that is not JSON is read as far as it goes.
 *
 * Contract: linear in the length of `text`; never throws.
 */
export function jsonTextNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 34) {
      const close = closingQuoteOf(text, index);
      if (close === -1) return false;
      index = close;
    } else if (code === 123 || code === 91) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === 125 || code === 93) {
      if (depth > 0) depth -= 1;
    }
  }
  return false;
}
