import { closeSync, constants, existsSync, open as openCallback, type Stats } from 'node:fs';
import { lstat, mkdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { HomePathError } from './home-path-error';

const hasProcFd = process.platform === 'linux' && existsSync('/proc/self/fd');
const openDescriptor = promisify(openCallback);

/** Symlinks followed in one resolution at most (as the kernel's own limit, 40). */
const MAX_LINKS = 40;

/**
 * A folder inside the home, open. On Linux its entries are addressed as `/proc/self/fd/N/<name>`: the
 * kernel resolves that to the very folder that was opened, so each step is one lookup in one folder,
 * whatever the depth, and a parent renamed or swapped for a symlink afterwards changes nothing.
 * Elsewhere (no `/proc/self/fd`) entries are addressed by the folder's real path.
 */
export interface OpenFolder {
  /** Its real path, for messages and results. */
  readonly real: string;
  /** A path addressing `name` inside it (`/proc/self/fd/N/name` on Linux). */
  entry(name: string): string;
  /** Closes its descriptor (a no-op without one). */
  close(): void;
}

async function openFolderAt(file: string, real: string): Promise<OpenFolder> {
  if (!hasProcFd) {
    // No descriptor to address entries through: the folder is checked as an open would check it.
    const stats = await lstat(file);
    if (!stats.isDirectory()) {
      throw Object.assign(new Error(`${file} is not a folder`), {
        code: stats.isSymbolicLink() ? 'ELOOP' : 'ENOTDIR',
      });
    }
    return { real, entry: (name) => path.join(real, name), close: () => undefined };
  }
  // A plain descriptor: closing a folder cannot block, so it is closed inline.
  const fd = await openDescriptor(
    file,
    constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  );
  let closed = false;
  return {
    real,
    entry: (name) => `/proc/self/fd/${fd}/${name}`,
    close: () => {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

/** What a walk found: the folder holding the last component (open), its name and what it is. */
export interface WalkEnd {
  /** The folder holding `name`, open; the caller closes it. */
  readonly folder: OpenFolder;
  /** The last component; `''` when the path is the home itself (`folder` is the home then). */
  readonly name: string;
  /** What `name` is (`lstat`: never a symlink, those are followed), or undefined when missing. */
  readonly stats: Stats | undefined;
}

/** How a walk treats missing folders and the last component. */
export interface WalkOptions {
  /** Create missing folders on the way (not the last component). */
  readonly createParents?: boolean;
  /** The words a refusal uses for the path (the path as the model gave it). */
  readonly userPath: string;
  /** The home's real path, and the home as configured (for messages). */
  readonly root: string;
  readonly given: string;
}

function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  return candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function outside(options: WalkOptions, target: string): HomePathError {
  return new HomePathError(
    `${options.userPath} resolves through a symlink to ${target}, outside the agent home (${options.given}); file tools only reach files inside it.`,
  );
}

function errnoError(options: WalkOptions, error: unknown): HomePathError {
  const code = (error as NodeJS.ErrnoException).code;
  const { userPath } = options;
  if (code === 'ENOENT') {
    return new HomePathError(`${userPath} does not exist.`, { code: 'not-found', path: userPath });
  }
  if (code === 'ENOTDIR') return new HomePathError(`${userPath}: a parent of it is not a directory.`);
  if (code === 'EACCES' || code === 'EPERM') return new HomePathError(`${userPath}: permission denied.`);
  if (code === 'ELOOP') return new HomePathError(`${userPath}: too many levels of symlinks.`);
  return new HomePathError(`${userPath}: ${(error as Error).message}`);
}

/** The components of `absolute` below the home's real path (`absolute` must lie inside it). */
function componentsBelow(root: string, absolute: string): string[] {
  const relative = path.relative(root, absolute);
  return relative === '' ? [] : relative.split(path.sep);
}

/**
 * Resolves `components` (a path inside the home, already made relative and free of `..`) one
 * component at a time from the home's real path, opening nothing outside it: each folder is opened
 * by name inside the folder before it with `O_NOFOLLOW | O_DIRECTORY`, and a symlink met on the way
 * (or as the last component) is read, never opened: its target is resolved against the real path
 * of the folder holding it, refused when it leaves the home, and the walk goes on from the home
 * with the target's components. Each step is one lookup in one open folder, so the walk is linear
 * in the path's length (plus the targets of at most 40 symlinks); a 1,000-level path costs 1,000
 * opens, where resolving every prefix again cost a quadratic number of lookups.
 *
 * Contract: throws `HomePathError` when a symlink leads outside the home, a parent is missing
 * (unless `createParents`) or is not a folder, or there are too many symlinks. The last component
 * may be missing (`stats` undefined). The caller closes `folder`.
 */
export async function walkBeneath(components: readonly string[], options: WalkOptions): Promise<WalkEnd> {
  let pending = [...components];
  let links = 0;
  let folder = await openFolderAt(options.root, options.root);
  /** Goes on from the home with a symlink's target in place of `entry` (read, never opened). */
  const follow = async (entry: string) => {
    links += 1;
    if (links > MAX_LINKS) throw errnoError(options, Object.assign(new Error(), { code: 'ELOOP' }));
    const link = await readlink(entry).catch(() => {
      // No longer a symlink: it was swapped while this walk went through.
      throw new HomePathError(`${options.userPath} changed while it was being resolved; try again.`);
    });
    const target = path.resolve(folder.real, link);
    if (!isInside(options.root, target)) throw outside(options, target);
    folder.close();
    folder = await openFolderAt(options.root, options.root);
    pending = [...componentsBelow(options.root, target), ...pending];
  };
  try {
    for (;;) {
      const name = pending.shift();
      if (name === undefined) return { folder, name: '', stats: await lstat(options.root) };
      const entry = folder.entry(name);
      if (pending.length === 0) {
        const stats = await lstat(entry).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined;
          throw errnoError(options, error);
        });
        if (stats?.isSymbolicLink()) {
          await follow(entry);
          continue;
        }
        return { folder, name, stats };
      }
      // A folder on the way: one open (O_NOFOLLOW | O_DIRECTORY) in the common case; only when it
      // fails is the entry looked at, to follow a symlink, create a missing folder, or say why.
      const real = path.join(folder.real, name);
      let next = await openFolderAt(entry, real).catch((error: NodeJS.ErrnoException) => error);
      if (next instanceof Error && next.code === 'ENOENT' && options.createParents === true) {
        await mkdir(entry).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw errnoError(options, error);
        });
        next = await openFolderAt(entry, real).catch((error: NodeJS.ErrnoException) => error);
      }
      if (next instanceof Error) {
        if (next.code !== 'ENOTDIR' && next.code !== 'ELOOP') throw errnoError(options, next);
        const stats = await lstat(entry).catch((error: unknown) => {
          throw errnoError(options, error);
        });
        if (!stats.isSymbolicLink()) throw errnoError(options, next);
        await follow(entry);
        continue;
      }
      folder.close();
      folder = next;
    }
  } catch (error) {
    folder.close();
    throw error;
  }
}

/**
 * Opens the folder `components` name (symlinks inside the home followed), creating it and its
 * parents when `create`.
 *
 * Contract: throws `HomePathError` as `walkBeneath`, and when the path is not a folder.
 */
export async function openFolderBeneath(
  components: readonly string[],
  options: WalkOptions & { create?: boolean },
): Promise<OpenFolder> {
  const end = await walkBeneath(components, { ...options, createParents: options.create === true });
  if (end.name === '') return end.folder;
  try {
    let stats = end.stats;
    if (stats === undefined && options.create === true) {
      await mkdir(end.folder.entry(end.name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw errnoError(options, error);
      });
      stats = await lstat(end.folder.entry(end.name));
      if (stats.isSymbolicLink()) {
        // Swapped in since: resolve it as any other path.
        end.folder.close();
        return openFolderBeneath(components, options);
      }
    }
    if (stats === undefined) throw errnoError(options, Object.assign(new Error(), { code: 'ENOENT' }));
    if (!stats.isDirectory()) {
      throw new HomePathError(`${options.userPath}: ${end.name} is not a directory.`);
    }
    return await openFolderAt(end.folder.entry(end.name), path.join(end.folder.real, end.name)).catch(
      (error: unknown) => {
        throw errnoError(options, error);
      },
    );
  } finally {
    end.folder.close();
  }
}
