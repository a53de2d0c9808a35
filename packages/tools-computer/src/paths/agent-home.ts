import { constants, type Dirent, existsSync, realpathSync, statSync } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ComputerToolsConfigError } from '../errors/computer-tools-config-error';
import { describeFileKind, readFolderFollowing } from './checked-open';
import { HomePathError } from './home-path-error';

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

const hasProcFd = process.platform === 'linux' && existsSync('/proc/self/fd');

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

function outsideMessage(userPath: string, real: string, home: AgentHome): string {
  return `${userPath} resolves through a symlink to ${real}, outside the agent home (${home.given}); file tools only reach files inside it.`;
}

function describeErrno(userPath: string, error: unknown): HomePathError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    return new HomePathError(`${userPath} does not exist.`, { code: 'not-found', path: userPath });
  }
  if (code === 'ENOTDIR') return new HomePathError(`${userPath}: a parent of it is not a directory.`);
  if (code === 'EACCES' || code === 'EPERM') return new HomePathError(`${userPath}: permission denied.`);
  if (code === 'ELOOP') return new HomePathError(`${userPath}: too many levels of symlinks.`);
  return new HomePathError(`${userPath}: ${(error as Error).message}`);
}

/**
 * Resolves a path that must exist to its real path and checks it stays inside the home.
 *
 * Contract: throws `HomePathError` when it leaves the home (directly or through a symlink) or does
 * not exist.
 */
export async function resolveExistingInHome(
  home: AgentHome,
  userPath: string,
): Promise<HomeRelativePath & { real: string }> {
  const resolved = resolveInHome(home, userPath);
  let real: string;
  try {
    real = await realpath(resolved.absolute);
  } catch (error) {
    throw describeErrno(userPath, error);
  }
  if (!isInside(home.root, real)) throw new HomePathError(outsideMessage(userPath, real, home));
  return { ...resolved, real };
}

/**
 * Lists a folder the model named inside the home with one checked open (`readFolderFollowing`): its
 * real path must lie inside the home.
 *
 * Contract: throws `HomePathError` as `resolveInHome` does; undefined when the one open cannot tell
 * (no `/proc`, a missing path or not a folder, a real path outside the home): `resolveExistingInHome`
 * and a checked read then say what is wrong.
 */
export async function readFolderInHome(
  home: AgentHome,
  userPath: string,
): Promise<{ real: string; entries: Dirent[] } | undefined> {
  const resolved = resolveInHome(home, userPath);
  return readFolderFollowing(resolved.absolute, (real) => isInside(home.root, real));
}

/** The path an open descriptor refers to now (Linux: through /proc), or undefined when unknown. */
async function pathOfDescriptor(handle: FileHandle): Promise<string | undefined> {
  if (!hasProcFd) return undefined;
  const target = await readlink(`/proc/self/fd/${handle.fd}`);
  return target.endsWith(' (deleted)') ? undefined : target;
}

/**
 * Opens an existing regular file for reading and checks, on the opened descriptor, that the file
 * really lies inside the home, so a symlink swapped in after a check cannot lead outside.
 *
 * Contract: throws `HomePathError` for a path outside the home, a missing file, a directory or
 * another non-regular file. The caller closes the handle.
 */
export async function openFileForRead(
  home: AgentHome,
  userPath: string,
): Promise<{ handle: FileHandle; real: string; relative: string; size: number; mode: number }> {
  const resolved = resolveInHome(home, userPath);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not hang the turn; the type check below refuses it.
    handle = await open(resolved.absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      // A dangling symlink pointing outside deserves the outside message, not "does not exist".
      const target = await readlink(resolved.absolute).catch(() => undefined);
      if (target !== undefined) {
        const outside = path.resolve(path.dirname(resolved.absolute), target);
        if (!isInside(home.root, outside)) throw new HomePathError(outsideMessage(userPath, outside, home));
      }
    }
    throw describeErrno(userPath, error);
  }
  try {
    const real = (await pathOfDescriptor(handle)) ?? (await realpath(resolved.absolute));
    if (!isInside(home.root, real)) throw new HomePathError(outsideMessage(userPath, real, home));
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new HomePathError(`${userPath} is a directory; use list_files to see what it contains.`);
    }
    if (!stats.isFile()) {
      throw new HomePathError(
        `${userPath} is ${describeFileKind(stats)}, not a regular file; file tools only read regular files.`,
      );
    }
    return { handle, real, relative: relativeToHome(home, real), size: stats.size, mode: stats.mode };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Creates a directory and its missing parents inside the home, one component at a time from the
 * home's real path, so no component can lead outside (an existing symlink is followed only when its
 * real path stays inside). Returns the directory's real path.
 *
 * Contract: throws `HomePathError` when a component leaves the home or is not a directory.
 */
export async function ensureDirectoryInHome(home: AgentHome, userPath: string): Promise<string> {
  const resolved = resolveInHome(home, userPath);
  let current = home.root;
  const components = resolved.relative === '.' ? [] : resolved.relative.split(path.sep);
  for (const component of components) {
    const next = path.join(current, component);
    const stats = await lstat(next).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw describeErrno(userPath, error);
    });
    if (stats === undefined) {
      await mkdir(next).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw describeErrno(userPath, error);
      });
      const created = await realpath(next);
      if (!isInside(home.root, created)) throw new HomePathError(outsideMessage(userPath, created, home));
      current = created;
      continue;
    }
    if (stats.isSymbolicLink()) {
      const real = await realpath(next).catch((error: unknown) => {
        throw describeErrno(userPath, error);
      });
      if (!isInside(home.root, real)) throw new HomePathError(outsideMessage(userPath, real, home));
      current = real;
    } else {
      current = next;
    }
    const kind = await lstat(current);
    if (!kind.isDirectory()) {
      throw new HomePathError(`${userPath}: ${relativeToHome(home, current)} is not a directory.`);
    }
  }
  return current;
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
 * Opens (creating it and its parents when missing) a directory inside the home and checks the
 * opened descriptor is inside the home.
 *
 * Contract: throws `HomePathError` when the directory leaves the home.
 */
export async function openDirectoryInHome(home: AgentHome, userPath: string): Promise<ConfinedDirectory> {
  const real = await ensureDirectoryInHome(home, userPath);
  const handle = await open(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  const opened = await pathOfDescriptor(handle);
  if (opened !== undefined && !isInside(home.root, opened)) {
    await handle.close();
    throw new HomePathError(outsideMessage(userPath, opened, home));
  }
  const base = opened === undefined ? real : `/proc/self/fd/${handle.fd}`;
  return {
    real: opened ?? real,
    entry: (name) => path.join(base, name),
    close: () => handle.close(),
  };
}
