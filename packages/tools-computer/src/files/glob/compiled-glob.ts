import { classMatches, codeLength } from './char-class';
import { type Alternative, ANY, CLASS, LITERAL, type NameSegment, STAR, type Token } from './glob-segments';
import { GlobWorkLimitError } from './glob-work-limit-error';

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
