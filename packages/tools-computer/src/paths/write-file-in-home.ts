import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, realpath, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { type AgentHome, isInside, openDirectoryInHome, relativeToHome, resolveInHome } from './agent-home';
import { HomePathError } from './home-path-error';

/** Characters of text encoded and written at a time. */
const WRITE_PIECE = 1 << 20;

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
 * rename puts it in place (text may be given in pieces, written in order). A rename replaces a
 * symlink swapped in at the target rather than following it, so a write never lands outside the
 * home. An existing file keeps its mode.
 *
 * Contract: throws `HomePathError` when the path or a parent leaves the home, or the target is a
 * directory; an existing symlink at the target is written through only when it points inside the
 * home.
 */
export async function writeFileInHome(
  home: AgentHome,
  userPath: string,
  content: string | Uint8Array | readonly string[],
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
    let bytes = 0;
    if (content instanceof Uint8Array) {
      await temporary.writeFile(content);
      bytes = content.byteLength;
    } else {
      // Text is encoded and written 1 MiB at a time: a 10 MB text never becomes one buffer on the
      // main thread (one copy of that size held the event loop for 40-140 ms here).
      for (const piece of typeof content === 'string' ? [content] : content) {
        for (let start = 0; start < piece.length; ) {
          let end = Math.min(piece.length, start + WRITE_PIECE);
          // Never cut between the two halves of a surrogate pair.
          const next = piece.charCodeAt(end);
          if (end < piece.length && next >= 0xdc00 && next <= 0xdfff && end - 1 > start) end -= 1;
          const chunk = Buffer.from(piece.slice(start, end), 'utf8');
          await temporary.write(chunk, 0, chunk.length);
          bytes += chunk.length;
          start = end;
        }
      }
    }
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
      bytes,
    };
  } catch (error) {
    await temporary?.close().catch(() => undefined);
    await unlink(temporaryPath).catch(() => undefined);
    throw error;
  } finally {
    await directory.close();
  }
}
