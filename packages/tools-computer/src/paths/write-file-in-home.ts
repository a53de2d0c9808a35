import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, realpath, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { type AgentHome, isInside, openDirectoryInHome, relativeToHome, resolveInHome } from './agent-home';
import { HomePathError } from './home-path-error';

/** What `writeFileInHome` reports. */
export interface WriteFileInHomeResult {
  /** The real path written. */
  real: string;
  /** The path relative to the home. */
  relative: string;
  /** The file did not exist before. */
  created: boolean;
  /** Bytes written. */
  bytes: number;
}

/** Hooks for tests that need to act between the checks and the commit. Not public API. */
export interface WriteFileInHomeHooks {
  /** Runs after the temp file is written and before it is renamed into place. */
  beforeRename?: () => Promise<void> | void;
}

/**
 * Writes a file inside the home atomically: parents are created inside the home, the content goes
 * to a temp file opened with `O_CREAT | O_EXCL | O_NOFOLLOW` in the checked parent directory, and a
 * rename puts it in place. A rename replaces a symlink swapped in at the target rather than
 * following it, so a write never lands outside the home. An existing file keeps its mode.
 *
 * Contract: throws `HomePathError` when the path or a parent leaves the home, or the target is a
 * directory; an existing symlink at the target is written through only when it points inside the
 * home.
 */
export async function writeFileInHome(
  home: AgentHome,
  userPath: string,
  content: string | Uint8Array,
  hooks: WriteFileInHomeHooks = {},
): Promise<WriteFileInHomeResult> {
  let target = resolveInHome(home, userPath);
  // Follow a symlink at the target only when its real path stays inside; write to that real path.
  const existingLink = await lstat(target.absolute).catch(() => undefined);
  if (existingLink?.isSymbolicLink()) {
    const real = await realpath(target.absolute).catch(() => undefined);
    if (real === undefined || !isInside(home.root, real)) {
      throw new HomePathError(
        `${userPath} is a symlink pointing outside the agent home (${home.given}); it will not be written through.`,
      );
    }
    target = { absolute: real, relative: relativeToHome(home, real) };
  }
  if (target.relative === '.') throw new HomePathError(`${userPath} is the home directory itself.`);
  const name = path.basename(target.absolute);
  const directory = await openDirectoryInHome(home, path.dirname(target.absolute));
  const finalPath = directory.entry(name);
  const temporaryPath = directory.entry(`.${name}.${randomBytes(6).toString('hex')}.tmp`);
  let temporary: FileHandle | undefined;
  try {
    const existing = await lstat(finalPath).catch(() => undefined);
    if (existing?.isDirectory()) throw new HomePathError(`${userPath} is a directory.`);
    const mode = existing?.isFile() ? existing.mode & 0o7777 : undefined;
    temporary = await open(
      temporaryPath,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode ?? 0o666,
    );
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    await temporary.writeFile(bytes);
    // The umask applies at creation: restore an existing file's exact mode (keeps scripts executable).
    if (mode !== undefined) await temporary.chmod(mode);
    await temporary.sync();
    await temporary.close();
    temporary = undefined;
    await hooks.beforeRename?.();
    await rename(temporaryPath, finalPath);
    const real = path.join(directory.real, name);
    return {
      real,
      relative: relativeToHome(home, real),
      created: existing === undefined,
      bytes: bytes.byteLength,
    };
  } catch (error) {
    await temporary?.close().catch(() => undefined);
    await unlink(temporaryPath).catch(() => undefined);
    throw error;
  } finally {
    await directory.close();
  }
}
