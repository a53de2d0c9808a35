import { constants, type Dirent, realpathSync, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { ComputerToolsConfigError } from '../errors/computer-tools-config-error';
import { describeFileKind } from './checked-open';
import { HomePathError } from './home-path-error';
import { readDirectory } from './read-directory';
import {
  type OpenFolder,
  openFolderBeneath,
  type WalkEnd,
  type WalkOptions,
  walkBeneath,
} from './walk-beneath';

/** The agent home, as configured and as its real path. Every file operation is confined to `root`. */
export interface AgentHome {
  /** The home as configured, made absolute (may contain symlinks). */
  readonly given: string;
  /** The home's real path: every path a tool touches must resolve inside it. */
  readonly root: string;
}

/** A path inside the home, resolved lexically (no symlink followed yet). */
export interface HomeRelativePath {
  /** Absolute path under `home.root`. */
  readonly absolute: string;
  /** Path relative to the home, `.` for the home itself; what labels and results show. */
  readonly relative: string;
}

/**
 * Resolves the configured home to its real path.
 *
 * Contract: throws `ComputerToolsConfigError` (field `home`) when it is missing, not a string, not a
 * directory or cannot be resolved.
 */
export function resolveAgentHome(home: unknown): AgentHome {
  if (typeof home !== 'string' || home.trim() === '') {
    throw new ComputerToolsConfigError({ field: 'home', message: 'must be a non-empty path' });
  }
  const given = path.resolve(home);
  let root: string;
  try {
    root = realpathSync.native(given);
  } catch (error) {
    throw new ComputerToolsConfigError({
      field: 'home',
      message: `${given} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      cause: error,
    });
  }
  if (!statSync(root).isDirectory()) {
    throw new ComputerToolsConfigError({ field: 'home', message: `${given} is not a directory` });
  }
  return { given, root };
}

/** True when `candidate` is `root` or below it. Both must be normalised absolute paths. */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate.startsWith(prefix);
}

/** A path relative to the home for labels and results (`.` for the home itself). */
export function relativeToHome(home: AgentHome, absolute: string): string {
  const relative = path.relative(home.root, absolute);
  return relative === '' ? '.' : relative;
}

/**
 * Resolves a path the model gave against the home without touching the file system: relative paths
 * are relative to the home, `..` is applied lexically, absolute paths must lie under the home.
 *
 * Contract: throws `HomePathError` for an empty path, a NUL byte, or a path that leaves the home.
 */
export function resolveInHome(home: AgentHome, userPath: string): HomeRelativePath {
  if (userPath.trim() === '') throw new HomePathError('The path is empty.');
  if (userPath.includes('\0')) throw new HomePathError('The path contains a NUL byte.');
  const candidate = path.resolve(home.root, userPath);
  let relative: string | undefined;
  if (isInside(home.root, candidate)) relative = path.relative(home.root, candidate);
  else if (isInside(home.given, candidate)) relative = path.relative(home.given, candidate);
  if (relative === undefined) {
    throw new HomePathError(
      `${userPath} is outside the agent home (${home.given}); file tools only reach files inside it. Use a path relative to the home.`,
    );
  }
  return { absolute: path.join(home.root, relative), relative: relative === '' ? '.' : relative };
}

function describeErrno(userPath: string, error: unknown): HomePathError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    return new HomePathError(`${userPath} does not exist.`, { code: 'not-found', path: userPath });
  }
  if (code === 'ELOOP') return new HomePathError(`${userPath} changed while it was being opened; try again.`);
  if (code === 'EACCES' || code === 'EPERM') return new HomePathError(`${userPath}: permission denied.`);
  return new HomePathError(`${userPath}: ${(error as Error).message}`);
}

/** The walk options for `userPath` in `home`, and its components below the home. */
function walkOf(home: AgentHome, userPath: string): { components: string[]; options: WalkOptions } {
  const resolved = resolveInHome(home, userPath);
  return {
    components: resolved.relative === '.' ? [] : resolved.relative.split(path.sep),
    options: { userPath, root: home.root, given: home.given },
  };
}

/**
 * Walks `userPath` inside the home one component at a time (`walkBeneath`): the folder holding its
 * last component (open: the caller closes it), that component's name and what it is.
 *
 * Contract: throws `HomePathError` as `resolveInHome` and `walkBeneath` do.
 */
export function walkInHome(
  home: AgentHome,
  userPath: string,
  options: { createParents?: boolean } = {},
): Promise<WalkEnd> {
  const walk = walkOf(home, userPath);
  return walkBeneath(walk.components, { ...walk.options, ...options });
}

/**
 * Resolves a path that must exist to its real path inside the home, one component at a time
 * (`walkBeneath`): symlinks inside the home are followed, nothing outside it is opened.
 *
 * Contract: throws `HomePathError` when it leaves the home (directly or through a symlink) or does
 * not exist.
 */
export async function resolveExistingInHome(
  home: AgentHome,
  userPath: string,
): Promise<HomeRelativePath & { real: string }> {
  const { components, options } = walkOf(home, userPath);
  const end = await walkBeneath(components, options);
  end.folder.close();
  if (end.stats === undefined) {
    throw new HomePathError(`${userPath} does not exist.`, { code: 'not-found', path: userPath });
  }
  const real = end.name === '' ? end.folder.real : path.join(end.folder.real, end.name);
  return { absolute: real, relative: relativeToHome(home, real), real };
}

/**
 * Lists a folder the model named inside the home, resolved by `walkBeneath` and read through its
 * open descriptor: at most `maxEntries` entries, the least by name, in name order (`readDirectory`).
 *
 * Contract: throws `HomePathError` as `resolveInHome` does; undefined when the path is missing, is
 * not a folder or leads outside the home: `resolveExistingInHome` then says what is wrong.
 */
export async function readFolderInHome(
  home: AgentHome,
  userPath: string,
  maxEntries = Number.POSITIVE_INFINITY,
): Promise<{ real: string; entries: Dirent[] } | undefined> {
  const { components, options } = walkOf(home, userPath);
  let folder: OpenFolder;
  try {
    folder = await openFolderBeneath(components, options);
  } catch (error) {
    if (error instanceof HomePathError) return undefined;
    throw error;
  }
  try {
    const read = await readDirectory(folder.entry('.'), maxEntries, { byName: true });
    return { real: folder.real, entries: read.entries };
  } catch {
    return undefined;
  } finally {
    folder.close();
  }
}

/**
 * Opens an existing regular file for reading. The path is resolved one component at a time
 * (`walkBeneath`: symlinks are read, never opened, and followed only inside the home), the last
 * component is looked at with `lstat` and refused unless it is a regular file (a FIFO, socket or
 * device is never opened), and then opened through its open folder with `O_NOFOLLOW | O_NONBLOCK`;
 * `fstat` checks that what was opened is that very file.
 *
 * Contract: throws `HomePathError` for a path outside the home, a missing file, a directory or
 * another non-regular file. The caller closes the handle.
 */
export async function openFileForRead(
  home: AgentHome,
  userPath: string,
): Promise<{ handle: FileHandle; real: string; relative: string; size: number; mode: number }> {
  const { components, options } = walkOf(home, userPath);
  const end = await walkBeneath(components, options);
  let handle: FileHandle | undefined;
  try {
    const { stats } = end;
    if (stats === undefined) {
      throw new HomePathError(`${userPath} does not exist.`, { code: 'not-found', path: userPath });
    }
    if (end.name === '' || stats.isDirectory()) {
      throw new HomePathError(`${userPath} is a directory; use list_files to see what it contains.`);
    }
    if (!stats.isFile()) {
      throw new HomePathError(
        `${userPath} is ${describeFileKind(stats)}, not a regular file; file tools only read regular files.`,
      );
    }
    handle = await open(
      end.folder.entry(end.name),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    ).catch((error: unknown) => {
      throw describeErrno(userPath, error);
    });
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== stats.ino || opened.dev !== stats.dev) {
      throw new HomePathError(`${userPath} changed while it was being opened; try again.`);
    }
    const real = path.join(end.folder.real, end.name);
    const result = {
      handle,
      real,
      relative: relativeToHome(home, real),
      size: opened.size,
      mode: opened.mode,
    };
    handle = undefined;
    return result;
  } finally {
    end.folder.close();
    await handle?.close();
  }
}

/**
 * Creates a directory and its missing parents inside the home, one component at a time from the
 * home's real path (`walkBeneath`), so no component can lead outside (an existing symlink is
 * followed only when its target stays inside). Returns the directory's real path.
 *
 * Contract: throws `HomePathError` when a component leaves the home or is not a directory.
 */
export async function ensureDirectoryInHome(home: AgentHome, userPath: string): Promise<string> {
  const { components, options } = walkOf(home, userPath);
  const folder = await openFolderBeneath(components, { ...options, create: true });
  folder.close();
  return folder.real;
}

/**
 * An open directory inside the home. On Linux its entries are addressed through
 * `/proc/self/fd/N/<name>`, which the kernel resolves to the very directory that was opened and
 * checked: renaming or replacing a parent with a symlink afterwards changes nothing.
 */
export interface ConfinedDirectory {
  /** The directory's real path when it was checked. */
  readonly real: string;
  /** A path addressing `name` inside the opened directory. */
  entry(name: string): string;
  /** Closes the directory descriptor. */
  close(): Promise<void>;
}

/**
 * Opens (creating it and its parents when missing) a directory inside the home, resolved one
 * component at a time (`walkBeneath`).
 *
 * Contract: throws `HomePathError` when the directory leaves the home.
 */
export async function openDirectoryInHome(home: AgentHome, userPath: string): Promise<ConfinedDirectory> {
  const { components, options } = walkOf(home, userPath);
  const folder = await openFolderBeneath(components, { ...options, create: true });
  return {
    real: folder.real,
    entry: (name) => folder.entry(name),
    close: async () => folder.close(),
  };
}
