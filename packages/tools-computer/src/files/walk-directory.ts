import type { Dirent } from 'node:fs';
import path from 'node:path';
import { type DirectoryRead, readDirectoryAt } from '../paths/checked-open';
import { HomePathError } from '../paths/home-path-error';
import type { CompiledGlob, GlobState } from './glob/compiled-glob';
import type { TimeSlice } from './time-slice';

/** One entry met while walking. */
export interface WalkEntry {
  /** Path relative to the walk's base, with `/` separators. */
  relative: string;
  /** Absolute real path the entry had when its folder was read (open it with a checked open). */
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
  /** Folder names to descend into even though they are in `SKIPPED_DIRECTORIES`. */
  include?: ReadonlySet<string>;
  /** Only entries this glob matches are visited, and folders below which it cannot match are not entered. */
  glob?: CompiledGlob;
  /** Cuts the walk into short stretches so the event loop keeps running. */
  slice: TimeSlice;
  /** Stops the walk. */
  signal?: AbortSignal;
  /** How the base is named in messages (relative to the home). */
  label: string;
  /** The base's entries, already read through a checked descriptor: the base is not read again. */
  baseEntries?: Dirent[];
}

/** What a walk reports when it ends. */
export interface WalkSummary {
  /** Entries visited. */
  visited: number;
  /** The walk stopped at `maxEntries`. */
  exhausted: boolean;
  /** Folders not listed because they were replaced (for example by a symlink) after being seen. */
  changed: number;
}

/**
 * Walks a directory depth-first in name order without following symlinks: a symlink is reported as
 * an entry but never entered, and every folder is opened with `O_NOFOLLOW` and checked to still be
 * where it was seen before it is listed, so a folder swapped for a symlink mid-walk is skipped, never
 * followed out of the tree. Unreadable folders are skipped. Of a folder, only as many entries are
 * kept as the walk has left (`maxEntries`): the least by name, which are those it would visit.
 *
 * Contract: throws `HomePathError` when `base` itself is not the folder it was (changed or gone);
 * throws `GlobWorkLimitError` when the glob runs out of work; stops early (keeping what it visited)
 * on abort.
 */
export async function walkDirectory(
  base: string,
  options: WalkOptions,
  visit: (entry: WalkEntry) => Promise<boolean | undefined> | boolean | undefined,
): Promise<WalkSummary> {
  const summary: WalkSummary = { visited: 0, exhausted: false, changed: 0 };
  const { glob, slice } = options;
  // Of a folder, only the entries the walk can still visit are kept (the least by name).
  const left = () => options.maxEntries - summary.visited + 1;
  const first: DirectoryRead =
    options.baseEntries === undefined
      ? await readDirectoryAt(base, left())
      : { entries: options.baseEntries };
  if (first.entries === undefined) {
    throw new HomePathError(
      first.problem === 'unreadable'
        ? `${options.label} cannot be read (permission denied).`
        : `${options.label} changed while it was being read (it is gone or no longer a folder); try again.`,
    );
  }
  const walk = async (
    directory: string,
    prefix: string,
    state: GlobState | undefined,
    entries: Dirent[],
  ): Promise<boolean> => {
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of entries) {
      if (slice.due) await slice.yield();
      if (options.signal?.aborted) return false;
      if (summary.visited >= options.maxEntries) {
        summary.exhausted = true;
        return false;
      }
      summary.visited += 1;
      const relative = prefix === '' ? dirent.name : `${prefix}/${dirent.name}`;
      const absolute = path.join(directory, dirent.name);
      const isDirectory = dirent.isDirectory();
      const next = glob === undefined || state === undefined ? undefined : glob.step(state, dirent.name);
      const matched = glob === undefined || (next !== undefined && glob.accepts(next, isDirectory));
      if (matched && (await visit({ relative, absolute, dirent })) === false) return false;
      const descend =
        isDirectory &&
        (glob === undefined || (next !== undefined && glob.canDescend(next))) &&
        (!SKIPPED_DIRECTORIES.has(dirent.name) || options.include?.has(dirent.name) === true);
      if (!descend) continue;
      const read = await readDirectoryAt(absolute, left());
      if (read.entries === undefined) {
        if (read.problem === 'changed') summary.changed += 1;
        continue;
      }
      if (!(await walk(absolute, relative, next, read.entries))) return false;
    }
    return true;
  };
  await walk(base, '', glob?.start, first.entries);
  return summary;
}
