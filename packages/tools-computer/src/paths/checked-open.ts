import { constants, type Dirent, existsSync, readlinkSync, type Stats } from 'node:fs';
import { type FileHandle, open, realpath, stat } from 'node:fs/promises';
import { readDirectory } from './read-directory';

const hasProcFd = process.platform === 'linux' && existsSync('/proc/self/fd');

/** Names what a non-regular file is, for messages the model reads. */
export function describeFileKind(stats: Stats | Dirent): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symlink';
  if (stats.isDirectory()) return 'a directory';
  return 'a regular file';
}

/** A FIFO, socket or device: never opened for reading (a FIFO open blocks a libuv thread). */
export function isSpecialFile(stats: Stats | Dirent): boolean {
  return stats.isFIFO() || stats.isSocket() || stats.isCharacterDevice() || stats.isBlockDevice();
}

/**
 * Whether an open descriptor is the file at `expected` (an absolute real path). On Linux the kernel
 * names the opened file through `/proc/self/fd`, so a folder swapped for a symlink anywhere above
 * `expected` shows up as a different path. Elsewhere the descriptor's device and inode must equal
 * those of `expected`'s real path.
 */
async function descriptorIsAt(handle: FileHandle, expected: string): Promise<boolean> {
  if (hasProcFd) {
    // A readlink of /proc/self/fd is answered from the kernel's dentry cache: it cannot block, and
    // doing it inline saves a thread-pool round trip per file.
    return readlinkSync(`/proc/self/fd/${handle.fd}`) === expected;
  }
  const [opened, real] = await Promise.all([handle.stat(), realpath(expected).catch(() => undefined)]);
  if (real !== expected) return false;
  const current = await stat(real).catch(() => undefined);
  return current !== undefined && current.dev === opened.dev && current.ino === opened.ino;
}

/** What `readDirectoryAt` found. */
export type DirectoryRead =
  | { entries: Dirent[]; problem?: undefined }
  | { entries?: undefined; problem: 'missing' | 'changed' | 'unreadable' };

/**
 * Lists the folder at `expected` (an absolute real path inside the home) only if that path still is
 * that folder: it is opened with `O_NOFOLLOW | O_DIRECTORY` (a symlink in its place is refused), the
 * opened descriptor is checked to be at `expected` (a parent swapped for a symlink is caught), and
 * the entries are read through the descriptor itself (`/proc/self/fd/N` on Linux), so what is
 * listed is the folder that was checked. At most `maxEntries` entries are kept, the least by name,
 * in name order (`readDirectory`).
 *
 * Contract: never throws for file-system errors; says why it read nothing instead.
 */
export async function readDirectoryAt(
  expected: string,
  maxEntries = Number.POSITIVE_INFINITY,
): Promise<DirectoryRead> {
  let handle: FileHandle;
  try {
    handle = await open(
      expected,
      constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { problem: 'missing' };
    if (code === 'ELOOP' || code === 'ENOTDIR') return { problem: 'changed' };
    return { problem: 'unreadable' };
  }
  try {
    if (!(await descriptorIsAt(handle, expected))) return { problem: 'changed' };
    const read = await readDirectory(hasProcFd ? `/proc/self/fd/${handle.fd}` : expected, maxEntries, {
      byName: true,
    });
    return { entries: read.entries };
  } catch {
    return { problem: 'unreadable' };
  } finally {
    await handle.close();
  }
}

/** What `openRegularFileAt` found. */
export type RegularFileOpen =
  | { handle: FileHandle; size: number; refused?: undefined; stats?: undefined }
  | { handle?: undefined; size?: undefined; refused: 'special'; stats: Stats }
  | {
      handle?: undefined;
      size?: undefined;
      refused: 'missing' | 'changed' | 'unreadable';
      stats?: undefined;
    };

/**
 * Opens the regular file at `expected` (an absolute real path inside the home) for reading, without
 * blocking and without following a symlink: `O_NONBLOCK` makes opening a FIFO return at once, the
 * descriptor's `fstat` refuses anything but a regular file, and the descriptor is checked to be at
 * `expected`.
 *
 * Contract: never throws for file-system errors; the caller closes the handle it gets.
 */
export async function openRegularFileAt(expected: string): Promise<RegularFileOpen> {
  let handle: FileHandle;
  try {
    handle = await open(expected, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { refused: 'missing' };
    if (code === 'ELOOP') return { refused: 'changed' };
    return { refused: 'unreadable' };
  }
  let keep = false;
  try {
    const stats = await handle.stat();
    if (isSpecialFile(stats)) return { refused: 'special', stats };
    if (!stats.isFile()) return { refused: 'changed' };
    if (!(await descriptorIsAt(handle, expected))) return { refused: 'changed' };
    keep = true;
    return { handle, size: stats.size };
  } catch {
    return { refused: 'unreadable' };
  } finally {
    if (!keep) await handle.close();
  }
}

/**
 * Reads at most `size` bytes from the start of an open file: the size `fstat` reported, so a file
 * that grows while it is read cannot make the read unbounded.
 */
export async function readUpTo(handle: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === size ? buffer : buffer.subarray(0, filled);
}
