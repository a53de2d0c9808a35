import type { Dirent } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { readDirectory } from './read-directory';

/** Entries one measurement visits at most: past it, the size seen so far stands (a lower bound). */
const MAX_ENTRIES = 1_000_000;
/** A home is walked again at most this often; in between, bytes written are added to the last size. */
const REMEASURE_AFTER_MS = 10_000;

/** What is known of one home's size. */
interface HomeState {
  /** Bytes allocated, at the last measurement. */
  measured: number | undefined;
  /** When that measurement started (`performance.now()`). */
  measuredAt: number;
  /** Bytes written since that measurement started (an estimate: rewrites and deletions are not taken off). */
  since: number;
  /** The measurement under way. */
  measuring: Promise<number> | undefined;
}

const homes = new Map<string, HomeState>();

/**
 * Bytes allocated to the files under `root` (`st_blocks`, so sparse files count what they hold and
 * hard-linked files count once), walking folders without following symlinks. Unreadable folders
 * count as empty.
 */
async function measure(root: string): Promise<number> {
  let total = 0;
  let visited = 0;
  const seen = new Set<string>();
  const folders = [root];
  while (folders.length > 0 && visited < MAX_ENTRIES) {
    const folder = folders.pop() as string;
    let entries: Dirent[];
    try {
      entries = (await readDirectory(folder, MAX_ENTRIES - visited)).entries;
    } catch {
      continue;
    }
    // A handful of lstats at a time: enough to keep the thread pool busy, never all of it.
    for (let start = 0; start < entries.length && visited < MAX_ENTRIES; start += 16) {
      const batch = entries.slice(start, start + 16);
      visited += batch.length;
      const stats = await Promise.all(
        batch.map((entry) => lstat(path.join(folder, entry.name)).catch(() => undefined)),
      );
      batch.forEach((entry, index) => {
        const entryStats = stats[index];
        if (entryStats === undefined) return;
        if (entryStats.nlink > 1 && !entryStats.isDirectory()) {
          const key = `${entryStats.dev}:${entryStats.ino}`;
          if (seen.has(key)) return;
          seen.add(key);
        }
        total += entryStats.blocks * 512;
        if (entry.isDirectory()) folders.push(path.join(folder, entry.name));
      });
    }
  }
  return total;
}

function stateOf(root: string): HomeState {
  let state = homes.get(root);
  if (state === undefined) {
    state = { measured: undefined, measuredAt: 0, since: 0, measuring: undefined };
    homes.set(root, state);
  }
  return state;
}

function startMeasuring(root: string, state: HomeState): Promise<number> {
  if (state.measuring !== undefined) return state.measuring;
  const startedAt = performance.now();
  const sinceAtStart = state.since;
  state.measuring = measure(root)
    .then((bytes) => {
      state.measured = bytes;
      state.measuredAt = startedAt;
      // Writes noted during the walk may or may not be in it: they are kept (an over-estimate).
      state.since -= sinceAtStart;
      return bytes;
    })
    .finally(() => {
      state.measuring = undefined;
    });
  return state.measuring;
}

/**
 * The home's size in bytes as far as it is known: the last measurement plus what was written since.
 * The first call for a home measures it (a walk of the home); later ones never wait for a walk, even
 * one under way (a large home's walk takes seconds).
 */
export async function homeUsage(root: string): Promise<number> {
  const state = stateOf(root);
  if (state.measured === undefined) await startMeasuring(root, state);
  return (state.measured ?? 0) + state.since;
}

/**
 * Notes what a write changed in the home's size (a command's disk writes; a file tool's bytes less
 * those of the file it replaced, negative when it shrank; undefined when not known), and walks the
 * home again in the background when the last walk is older than 10 s, so deletions are seen too.
 */
export function noteHomeWritten(root: string, bytes: number | undefined): void {
  const state = stateOf(root);
  if (bytes !== undefined) state.since += bytes;
  if (bytes === 0) return;
  if (performance.now() - state.measuredAt >= REMEASURE_AFTER_MS) {
    void startMeasuring(root, state).catch(() => undefined);
  }
}
