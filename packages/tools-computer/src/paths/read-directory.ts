import type { Dirent } from 'node:fs';
import { opendir } from 'node:fs/promises';

/** Entries read from the folder per call to the file system: each batch is built in one go. */
const BATCH = 256;

/** What `readDirectory` read: at most `maxEntries` entries, and whether the folder has more. */
export interface DirectoryEntries {
  /** In name order (UTF-16 code units) with `byName`; else in the order the file system gave them. */
  entries: Dirent[];
  /** The folder holds more than `maxEntries` entries: those kept are the first, or the least by name. */
  more: boolean;
}

/** Name order, as a walk visits a folder's entries. */
export const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Reads the folder at `folder` `BATCH` entries at a time, keeping at most `maxEntries` of them: the
 * first the file system gives, or with `byName` the least by name (every entry is read; whenever
 * twice `maxEntries` are held they are sorted and cut back, so memory stays bounded and each sort is
 * short). `readdir` builds every entry of a folder in one go on the calling thread: for a folder of
 * 1,000,000 files that held the event loop for 0.6 s.
 *
 * Contract: rejects with the file system's error when the folder cannot be opened or read; the
 * folder is closed whatever happens.
 */
export async function readDirectory(
  folder: string,
  maxEntries: number,
  options: { byName?: boolean } = {},
): Promise<DirectoryEntries> {
  const directory = await opendir(folder, { bufferSize: BATCH });
  let entries: Dirent[] = [];
  let more = false;
  try {
    for (let entry = await directory.read(); entry !== null; entry = await directory.read()) {
      if (options.byName !== true && entries.length >= maxEntries) return { entries, more: true };
      entries.push(entry);
      if (entries.length >= 2 * maxEntries) {
        entries = entries.sort(byName).slice(0, maxEntries);
        more = true;
      }
    }
  } finally {
    await directory.close().catch(() => {});
  }
  if (options.byName === true) {
    entries.sort(byName);
    if (entries.length > maxEntries) {
      entries.length = maxEntries;
      more = true;
    }
  }
  return { entries, more };
}
