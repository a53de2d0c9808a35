import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** One entry met while walking. */
export interface WalkEntry {
  /** Path relative to the walk's base, with `/` separators. */
  relative: string;
  /** Absolute path. */
  absolute: string;
  /** What readdir said about it (symlinks are reported, never followed). */
  dirent: Dirent;
}

/** Folders skipped unless a pattern names them: they are large and rarely what the model wants. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** What `walkDirectory` takes. */
export interface WalkOptions {
  /** Stop after visiting this many entries. */
  maxEntries: number;
  /** Do not descend below this depth (1: the base's children only). */
  maxDepth?: number;
  /** Folder names to descend into even though they are in `SKIPPED_DIRECTORIES`. */
  include?: ReadonlySet<string>;
  /** Stops the walk. */
  signal?: AbortSignal;
}

/** What a walk reports when it ends. */
export interface WalkSummary {
  /** Entries visited. */
  visited: number;
  /** The walk stopped at `maxEntries`. */
  exhausted: boolean;
}

/**
 * Walks a directory depth-first in name order without following symlinks (a symlink is reported as
 * an entry but never descended into, so a walk cannot leave the tree it started in). Unreadable
 * folders are skipped.
 */
export async function walkDirectory(
  base: string,
  options: WalkOptions,
  visit: (entry: WalkEntry) => Promise<boolean | undefined> | boolean | undefined,
): Promise<WalkSummary> {
  const summary: WalkSummary = { visited: 0, exhausted: false };
  const walk = async (directory: string, prefix: string, depth: number): Promise<boolean> => {
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return true;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of entries) {
      if (options.signal?.aborted) return false;
      if (summary.visited >= options.maxEntries) {
        summary.exhausted = true;
        return false;
      }
      summary.visited += 1;
      const relative = prefix === '' ? dirent.name : `${prefix}/${dirent.name}`;
      const absolute = path.join(directory, dirent.name);
      if ((await visit({ relative, absolute, dirent })) === false) return false;
      const descend =
        dirent.isDirectory() &&
        (options.maxDepth === undefined || depth < options.maxDepth) &&
        (!SKIPPED_DIRECTORIES.has(dirent.name) || options.include?.has(dirent.name) === true);
      if (descend && !(await walk(absolute, relative, depth + 1))) return false;
    }
    return true;
  };
  await walk(base, '', 1);
  return summary;
}
