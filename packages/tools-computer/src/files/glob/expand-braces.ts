import { parseClass } from './char-class';
import { MAX_EXPANDED_LENGTH, MAX_GLOB_ALTERNATIVES } from './glob-limits';
import { PatternProblem } from './pattern-problem';

/**
 * Expands `{a,b}` groups and `{1..3}` / `{a..c}` ranges into plain patterns (escapes and classes
 * kept for the segment parser). Braces are matched in one pass first, so unbalanced braces are
 * literal characters and nothing is parsed twice.
 */
export function expandBraces(pattern: string): string[] {
  const length = pattern.length;
  const closeOf = new Int32Array(length).fill(-1);
  const commaOwner = new Int32Array(length).fill(-1);
  const hasComma = new Uint8Array(length);
  const stack: number[] = [];
  for (let index = 0; index < length; index += 1) {
    const char = pattern[index];
    if (char === '\\') index += 1;
    else if (char === '[') {
      const parsed = parseClass(pattern, index);
      if (parsed !== undefined) index = parsed.end;
    } else if (char === '{') stack.push(index);
    else if (char === '}' && stack.length > 0) closeOf[stack.pop() ?? 0] = index;
    else if (char === ',' && stack.length > 0) {
      const owner = stack[stack.length - 1] ?? 0;
      commaOwner[index] = owner;
      hasComma[owner] = 1;
    }
  }

  const tooManyAlternatives = (): never => {
    throw new PatternProblem(
      `The pattern expands to more than ${MAX_GLOB_ALTERNATIVES} alternatives; use fewer {a,b} groups or ranges, or call the tool more than once.`,
    );
  };
  const combine = (heads: string[], tails: string[]): string[] => {
    if (heads.length * tails.length > MAX_GLOB_ALTERNATIVES) tooManyAlternatives();
    const out: string[] = [];
    let total = 0;
    for (const head of heads) {
      for (const tail of tails) {
        total += head.length + tail.length;
        if (total > MAX_EXPANDED_LENGTH) {
          throw new PatternProblem(
            `The pattern's {a,b} alternatives expand to more than ${MAX_EXPANDED_LENGTH} characters; shorten it.`,
          );
        }
        out.push(head + tail);
      }
    }
    return out;
  };

  // Parses from `start` to the end of the pattern (owner -1) or to the next top-level comma or the
  // closing brace of the group opened at `owner`.
  const sequence = (start: number, owner: number): { list: string[]; next: number } => {
    let list = [''];
    let literal = '';
    let index = start;
    const stop = owner === -1 ? length : (closeOf[owner] ?? length);
    while (index < stop) {
      const char = pattern[index] ?? '';
      if (char === ',' && owner !== -1 && commaOwner[index] === owner) break;
      if (char === '\\') {
        literal += pattern.slice(index, index + 2);
        index += 2;
        continue;
      }
      if (char === '[') {
        const parsed = parseClass(pattern, index);
        const end = parsed === undefined ? index : parsed.end;
        literal += pattern.slice(index, end + 1);
        index = end + 1;
        continue;
      }
      const close = char === '{' ? (closeOf[index] ?? -1) : -1;
      if (close !== -1) {
        let group: string[] | undefined;
        if (hasComma[index] === 1) {
          group = [];
          let next = index + 1;
          for (;;) {
            const part = sequence(next, index);
            group.push(...part.list);
            if (group.length > MAX_GLOB_ALTERNATIVES) tooManyAlternatives();
            next = part.next;
            if (next >= close) break;
            next += 1;
          }
        } else {
          group = expandRange(pattern.slice(index + 1, close));
        }
        if (group !== undefined) {
          list = combine(
            list.map((head) => head + literal),
            group,
          );
          literal = '';
          index = close + 1;
          continue;
        }
      }
      literal += char;
      index += 1;
    }
    return { list: list.map((head) => head + literal), next: index };
  };

  return sequence(0, -1).list;
}

/** `1..5`, `-2..2`, `01..10` (zero-padded) or `a..e`; undefined for anything else. */
function expandRange(body: string): string[] | undefined {
  const numeric = /^(-?\d{1,9})\.\.(-?\d{1,9})$/.exec(body);
  const letters = numeric === null ? /^([A-Za-z])\.\.([A-Za-z])$/.exec(body) : null;
  if (numeric === null && letters === null) return undefined;
  const [first, last] = (numeric ?? letters ?? []).slice(1) as [string, string];
  const from = numeric !== null ? Number(first) : first.charCodeAt(0);
  const to = numeric !== null ? Number(last) : last.charCodeAt(0);
  const count = Math.abs(to - from) + 1;
  if (count > MAX_GLOB_ALTERNATIVES) {
    throw new PatternProblem(
      `The range {${body}} has more than ${MAX_GLOB_ALTERNATIVES} values; use a wildcard such as * or [0-9] instead.`,
    );
  }
  // `{01..10}` keeps the width of its widest end, as bash does.
  const padded = numeric !== null && (/^-?0\d/.test(first) || /^-?0\d/.test(last));
  const width = padded ? Math.max(first.replace('-', '').length, last.replace('-', '').length) : 0;
  const step = to >= from ? 1 : -1;
  const values: string[] = [];
  for (let value = from; step > 0 ? value <= to : value >= to; value += step) {
    if (numeric === null) values.push(String.fromCharCode(value));
    else {
      const digits = String(Math.abs(value)).padStart(width, '0');
      values.push(value < 0 ? `-${digits}` : digits);
    }
  }
  return values;
}
