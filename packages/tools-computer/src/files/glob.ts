// A glob matcher whose cost is bounded by (name length x pattern length) per path segment, written
// here rather than taken from picomatch/micromatch/minimatch: those compile a glob to a backtracking
// regular expression, and `*a*a*a*a*b` against a 200-character name blocked the event loop for a
// minute. Each segment is matched by simulating its automaton (a set of positions in the pattern,
// advanced one character at a time), and `**` is a set of positions over the segments, advanced one
// folder at a time as a walk descends, so a walk also learns which folders cannot hold a match.

import { parseClass } from './glob/char-class';
import { CompiledGlob } from './glob/compiled-glob';
import { expandBraces } from './glob/expand-braces';
import { DEFAULT_GLOB_WORK, MAX_GLOB_LENGTH } from './glob/glob-limits';
import { compileAlternative } from './glob/glob-segments';
import { PatternProblem } from './glob/pattern-problem';

/** How a glob matches. */
export interface GlobOptions {
  /** Wildcards (`*`, `?`, `[...]`, `**`) also match names that start with a dot. */
  dot?: boolean;
  /** A pattern without `/` matches the last segment of a path at any depth, dot folders included. */
  matchBase?: boolean;
  /** Work budget (pattern positions advanced over characters) before `GlobWorkLimitError`. */
  maxWork?: number;
}

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
