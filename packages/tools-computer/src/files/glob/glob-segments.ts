import type { GlobOptions } from '../glob';
import { type CharClass, codeLength, parseClass } from './char-class';
import { PatternProblem } from './pattern-problem';

// Token kinds of a name segment.
/** One character, exactly. */
export const LITERAL = 0;
/** `?`: any one character. */
export const ANY = 1;
/** `*`: any run of characters. */
export const STAR = 2;
/** `[...]`: one character of a class. */
export const CLASS = 3;

/** One step of a name segment's pattern. */
export interface Token {
  kind: typeof LITERAL | typeof ANY | typeof STAR | typeof CLASS;
  code: number;
  charClass?: CharClass;
}

/** A path segment matched against one name, by simulating its automaton. */
export interface NameSegment {
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

/** `**`: any number of folders. */
export interface GlobstarSegment {
  globstar: true;
  /** This `**` may cross folders whose name starts with a dot. */
  dot: boolean;
}

/** One `/`-separated part of a pattern. */
export type Segment = NameSegment | GlobstarSegment;

/** One of the patterns a glob expands to (`{a,b}` gives two), as segments. */
export interface Alternative {
  segments: Segment[];
  /** The pattern ended with `/`: only folders match. */
  directoryOnly: boolean;
}

/** Compiles one path segment of a pattern (no `/` in it) into tokens. */
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

/**
 * Compiles one expanded pattern into its segments; undefined when it names no path a walk yields.
 *
 * Contract: throws `PatternProblem` for a `..` segment.
 */
export function compileAlternative(
  text: string,
  options: GlobOptions,
  pattern: string,
): Alternative | undefined {
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
