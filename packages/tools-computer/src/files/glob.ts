// A glob matcher whose cost is bounded by (name length x pattern length) per path segment, written
// here rather than taken from picomatch/micromatch/minimatch: those compile a glob to a backtracking
// regular expression, and `*a*a*a*a*b` against a 200-character name blocked the event loop for a
// minute. Each segment is matched by simulating its automaton (a set of positions in the pattern,
// advanced one character at a time), and `**` is a set of positions over the segments, advanced one
// folder at a time as a walk descends, so a walk also learns which folders cannot hold a match.

/** The longest pattern accepted, in characters. */
export const MAX_GLOB_LENGTH = 1_000;
/** The most alternatives `{a,b}` groups and `{1..9}` ranges may expand to. */
export const MAX_GLOB_ALTERNATIVES = 256;
/** The most characters all alternatives may hold together. */
const MAX_EXPANDED_LENGTH = 20_000;
/** Default work budget of one compiled glob: pattern positions advanced over name characters. */
export const DEFAULT_GLOB_WORK = 50_000_000;

/** Thrown by a compiled glob when matching has used its work budget. */
export class GlobWorkLimitError extends Error {
  constructor(readonly pattern: string) {
    super(`matching the glob ${pattern} used up its work limit`);
    this.name = 'GlobWorkLimitError';
  }
}

/** How a glob matches. */
export interface GlobOptions {
  /** Wildcards (`*`, `?`, `[...]`, `**`) also match names that start with a dot. */
  dot?: boolean;
  /** A pattern without `/` matches the last segment of a path at any depth, dot folders included. */
  matchBase?: boolean;
  /** Work budget (pattern positions advanced over characters) before `GlobWorkLimitError`. */
  maxWork?: number;
}

const LITERAL = 0;
const ANY = 1;
const STAR = 2;
const CLASS = 3;

interface CharClass {
  negated: boolean;
  /** Inclusive code point ranges, flattened: [from0, to0, from1, to1, ...]. */
  ranges: number[];
  predicates: Array<(code: number) => boolean>;
}

interface Token {
  kind: typeof LITERAL | typeof ANY | typeof STAR | typeof CLASS;
  code: number;
  charClass?: CharClass;
}

interface NameSegment {
  globstar: false;
  /** Set when the segment has no wildcard: matched by string equality. */
  literal: string | undefined;
  tokens: Token[];
  /** The segment starts with a literal dot, so it may match a dot name without `dot`. */
  leadingDot: boolean;
  /** Scratch space for the automaton (matching is synchronous, so it can be shared). */
  current: Int32Array;
  next: Int32Array;
  marks: Int32Array;
}

interface GlobstarSegment {
  globstar: true;
  /** This `**` may cross folders whose name starts with a dot. */
  dot: boolean;
}

type Segment = NameSegment | GlobstarSegment;

interface Alternative {
  segments: Segment[];
  /** The pattern ended with `/`: only folders match. */
  directoryOnly: boolean;
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

const codeLength = (code: number) => (code > 0xffff ? 2 : 1);

/**
 * Parses a `[...]` class starting at `start` (which holds `[`). Returns undefined when it is not a
 * class (no closing `]` before the end of the segment), in which case `[` is a literal.
 */
function parseClass(text: string, start: number): { end: number; charClass: CharClass } | undefined {
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

function classMatches(charClass: CharClass, code: number): boolean {
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

class PatternProblem extends Error {}

/** Refuses syntax picomatch accepted that this matcher does not implement, with what to use instead. */
function checkUnsupported(pattern: string): void {
  if (pattern.startsWith('!')) {
    throw new PatternProblem(
      `Negated patterns (${pattern}) are not supported; list with a positive pattern and skip what you do not want, or escape a leading ! as \\!.`,
    );
  }
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') {
      index += 1;
      continue;
    }
    if (char === '[') {
      const parsed = parseClass(pattern, index);
      if (parsed !== undefined) index = parsed.end;
      continue;
    }
    if (
      pattern[index + 1] === '(' &&
      (char === '@' || char === '*' || char === '+' || char === '?' || char === '!')
    ) {
      throw new PatternProblem(
        `Extended globs like ${char}(a|b) are not supported; use {a,b} for alternatives, or escape a literal parenthesis as \\(.`,
      );
    }
  }
}

/**
 * Expands `{a,b}` groups and `{1..3}` / `{a..c}` ranges into plain patterns (escapes and classes
 * kept for the segment parser). Braces are matched in one pass first, so unbalanced braces are
 * literal characters and nothing is parsed twice.
 */
function expandBraces(pattern: string): string[] {
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

function compileNameSegment(text: string): NameSegment {
  const tokens: Token[] = [];
  let wildcard = false;
  for (let index = 0; index < text.length; ) {
    const char = text[index];
    if (char === '\\' && index + 1 < text.length) {
      const code = text.codePointAt(index + 1) ?? 0;
      tokens.push({ kind: LITERAL, code });
      index += 1 + codeLength(code);
    } else if (char === '*') {
      wildcard = true;
      if (tokens[tokens.length - 1]?.kind !== STAR) tokens.push({ kind: STAR, code: 0 });
      index += 1;
    } else if (char === '?') {
      wildcard = true;
      tokens.push({ kind: ANY, code: 0 });
      index += 1;
    } else {
      const parsed = char === '[' ? parseClass(text, index) : undefined;
      if (parsed !== undefined) {
        wildcard = true;
        tokens.push({ kind: CLASS, code: 0, charClass: parsed.charClass });
        index = parsed.end + 1;
      } else {
        const code = text.codePointAt(index) ?? 0;
        tokens.push({ kind: LITERAL, code });
        index += codeLength(code);
      }
    }
  }
  const size = tokens.length + 1;
  return {
    globstar: false,
    literal: wildcard ? undefined : tokens.map((token) => String.fromCodePoint(token.code)).join(''),
    tokens,
    leadingDot: tokens[0]?.kind === LITERAL && tokens[0].code === 46,
    current: new Int32Array(size),
    next: new Int32Array(size),
    marks: new Int32Array(size).fill(-1),
  };
}

function compileAlternative(text: string, options: GlobOptions, pattern: string): Alternative | undefined {
  const parts = text.split('/');
  const directoryOnly = parts.length > 1 && parts[parts.length - 1] === '';
  if (directoryOnly) parts.pop();
  if (parts.includes('..')) throw new PatternProblem('The pattern cannot contain "..".');
  // An alternative with an empty or "." folder (`{b,}/a` gives `/a`) names no path a walk yields.
  if (parts.some((part) => part === '' || part === '.')) return undefined;
  const segments: Segment[] = [];
  for (const part of parts) {
    if (part === '**') {
      // `**/**` is the same as `**`: one globstar keeps the position set small.
      if (segments[segments.length - 1]?.globstar !== true) {
        segments.push({ globstar: true, dot: options.dot === true });
      }
    } else segments.push(compileNameSegment(part));
  }
  if (options.matchBase === true && !pattern.includes('/') && segments[0]?.globstar !== true) {
    segments.unshift({ globstar: true, dot: true });
  }
  return { segments, directoryOnly };
}

/** Where matching stands after some path segments: opaque, produced by `start` and `step`. */
export type GlobState = readonly number[];

/**
 * A compiled glob, matched one path segment at a time so a walk can carry the state of a folder to
 * its entries and skip folders that cannot contain a match.
 */
export class CompiledGlob {
  /** Work spent so far (pattern positions advanced over characters). */
  work = 0;
  /** The state before any segment. */
  readonly start: GlobState;
  private readonly maxWork: number;

  constructor(
    /** The pattern as given. */
    readonly pattern: string,
    private readonly alternatives: readonly Alternative[],
    private readonly dot: boolean,
    maxWork: number,
  ) {
    this.maxWork = maxWork;
    const start: number[] = [];
    const seen = new Set<number>();
    alternatives.forEach((_, index) => {
      this.add(start, seen, index, 0);
    });
    this.start = start;
  }

  private add(state: number[], seen: Set<number>, alternative: number, position: number): void {
    const segments = this.alternatives[alternative]?.segments ?? [];
    for (let at = position; at <= segments.length; at += 1) {
      const code = alternative * 65_536 + at;
      if (seen.has(code)) return;
      seen.add(code);
      state.push(code);
      // `**` may match no folder at all: the position after it is reachable too.
      if (segments[at]?.globstar !== true) return;
    }
  }

  /**
   * Advances the state over one path segment (a file or folder name).
   *
   * Contract: throws `GlobWorkLimitError` once the work budget is used up.
   */
  step(state: GlobState, name: string): GlobState {
    const next: number[] = [];
    const seen = new Set<number>();
    for (const code of state) {
      const alternative = Math.floor(code / 65_536);
      const position = code % 65_536;
      const segment = this.alternatives[alternative]?.segments[position];
      if (segment === undefined) continue;
      if (segment.globstar) {
        this.work += 1;
        if (segment.dot || name.charCodeAt(0) !== 46) this.add(next, seen, alternative, position);
      } else if (this.matchSegment(segment, name)) {
        this.add(next, seen, alternative, position + 1);
      }
    }
    if (this.work > this.maxWork) throw new GlobWorkLimitError(this.pattern);
    return next;
  }

  /** The path that led to this state matches (a folder only matches a pattern ending in `/` when `isDirectory`). */
  accepts(state: GlobState, isDirectory: boolean): boolean {
    return state.some((code) => {
      const alternative = this.alternatives[Math.floor(code / 65_536)];
      return (
        alternative !== undefined &&
        code % 65_536 === alternative.segments.length &&
        (!alternative.directoryOnly || isDirectory)
      );
    });
  }

  /** Something below a folder in this state could still match. */
  canDescend(state: GlobState): boolean {
    return state.some((code) => {
      const alternative = this.alternatives[Math.floor(code / 65_536)];
      return alternative !== undefined && code % 65_536 < alternative.segments.length;
    });
  }

  /** Matches a whole relative path (`/`-separated). */
  matches(path: string, isDirectory = false): boolean {
    let state = this.start;
    for (const name of path.split('/')) {
      if (name === '') continue;
      state = this.step(state, name);
      if (state.length === 0) return false;
    }
    return this.accepts(state, isDirectory);
  }

  private matchSegment(segment: NameSegment, name: string): boolean {
    if (segment.literal !== undefined) {
      this.work += 1;
      return segment.literal === name;
    }
    if (!this.dot && name.charCodeAt(0) === 46 && !segment.leadingDot) return false;
    const { tokens, marks } = segment;
    const end = tokens.length;
    let current = segment.current;
    let next = segment.next;
    let generation = 0;
    marks.fill(-1);
    let size = 0;
    const push = (list: Int32Array, count: number, position: number): number => {
      let added = count;
      for (let at = position; at <= end; at += 1) {
        if (marks[at] === generation) return added;
        marks[at] = generation;
        list[added] = at;
        added += 1;
        // A star may match nothing: the position after it is active too.
        if (tokens[at]?.kind !== STAR) return added;
      }
      return added;
    };
    size = push(current, 0, 0);
    let work = 0;
    for (let index = 0; index < name.length; ) {
      const code = name.codePointAt(index) ?? 0;
      index += codeLength(code);
      generation += 1;
      let nextSize = 0;
      for (let slot = 0; slot < size; slot += 1) {
        const position = current[slot] ?? end;
        if (position === end) continue;
        const token = tokens[position] as Token;
        if (token.kind === STAR) nextSize = push(next, nextSize, position);
        else if (
          token.kind === ANY ||
          (token.kind === LITERAL && token.code === code) ||
          (token.kind === CLASS && token.charClass !== undefined && classMatches(token.charClass, code))
        ) {
          nextSize = push(next, nextSize, position + 1);
        }
      }
      work += size;
      [current, next] = [next, current];
      size = nextSize;
      if (size === 0) break;
    }
    this.work += work + 1;
    for (let slot = 0; slot < size; slot += 1) if (current[slot] === end) return true;
    return false;
  }
}

/**
 * Compiles a glob: `*` and `?` within a name, `**` across folders, `[abc]`, `[a-z]`, `[!a]` and
 * POSIX classes (`[[:digit:]]`), `{a,b}` alternatives (nested), `{1..3}` and `{a..c}` ranges, `\`
 * escapes, and a trailing `/` for folders only. Wildcards do not match a leading dot unless `dot`.
 * Negation (`!x`) and extended globs (`+(a|b)`) are refused with what to use instead.
 *
 * Contract: never throws for a bad pattern; returns `{ problem }` with a message for the model.
 */
export function compileGlob(
  pattern: string,
  options: GlobOptions = {},
): { glob: CompiledGlob; problem?: undefined } | { glob?: undefined; problem: string } {
  if (pattern.trim() === '') return { problem: 'The pattern is empty.' };
  if (pattern.startsWith('/')) {
    return { problem: `The pattern must be relative (use path for the folder), got ${pattern}.` };
  }
  if (pattern.length > MAX_GLOB_LENGTH) {
    return { problem: `The pattern is longer than ${MAX_GLOB_LENGTH} characters; shorten it.` };
  }
  try {
    checkUnsupported(pattern);
    let relative = pattern;
    while (relative.startsWith('./')) relative = relative.slice(2);
    const alternatives = expandBraces(relative).flatMap(
      (text) => compileAlternative(text, options, pattern) ?? [],
    );
    if (alternatives.length === 0) {
      return { problem: `The pattern ${pattern} names no file or folder; use * to list a folder.` };
    }
    return {
      glob: new CompiledGlob(
        pattern,
        alternatives,
        options.dot === true,
        options.maxWork ?? DEFAULT_GLOB_WORK,
      ),
    };
  } catch (error) {
    if (error instanceof PatternProblem) return { problem: error.message };
    throw error;
  }
}
