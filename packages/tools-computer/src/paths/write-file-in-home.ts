import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { type AgentHome, relativeToHome, walkInHome } from './agent-home';
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
  /** What the write added to the home: `bytes` less those of the file it replaced (negative when it shrank). */
  addedBytes: number;
}

/** Options of `writeFileInHome`. Not public API. */
export interface WriteFileInHomeHooks {
  /** Runs after the temp file is written and before it is renamed into place (for tests). */
  beforeRename?: () => Promise<void> | void;
  /**
   * The home's disk quota: refuse a write that would take the home past `maxBytes` (`usedBytes` is
   * its size now). What the write adds is its bytes less those of the file it replaces.
   */
  quota?: { usedBytes: number; maxBytes: number };
}

/** Bytes `content` takes in UTF-8, counted piece by piece (never joined). */
function byteLength(content: string | Uint8Array | readonly string[]): number {
  if (content instanceof Uint8Array) return content.byteLength;
  let bytes = 0;
  for (const piece of typeof content === 'string' ? [content] : content) bytes += Buffer.byteLength(piece);
  return bytes;
}

function formatMiB(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * Writes a file inside the home atomically: the path is resolved one component at a time from the
 * home (`walkBeneath`: missing parents are created, symlinks followed only inside the home, nothing
 * outside it opened), the content goes to a temp file opened with `O_CREAT | O_EXCL | O_NOFOLLOW`
 * in the open parent folder, and a rename puts it in place (text may be given in pieces, written in
 * order). A rename replaces a symlink swapped in at the target rather than following it, so a write
 * never lands outside the home. An existing file keeps its mode, but never a setuid or setgid bit.
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
  const end = await walkInHome(home, userPath, { createParents: true });
  const { folder, name } = end;
  if (name === '') {
    folder.close();
    throw new HomePathError(`${userPath} is the home directory itself.`);
  }
  const finalPath = folder.entry(name);
  const temporaryPath = folder.entry(`.${name}.${randomBytes(6).toString('hex')}.tmp`);
  let temporary: FileHandle | undefined;
  try {
    const existing = end.stats;
    if (existing?.isDirectory()) throw new HomePathError(`${userPath} is a directory.`);
    const replacedBytes = existing?.isFile() ? existing.size : 0;
    if (hooks.quota !== undefined) {
      const added = byteLength(content) - replacedBytes;
      const { usedBytes, maxBytes } = hooks.quota;
      if (added > 0 && usedBytes + added > maxBytes) {
        throw new HomePathError(
          `${userPath} was not written: the home holds ${formatMiB(usedBytes)} of its ${formatMiB(maxBytes)} disk quota, and this write would add ${formatMiB(added)}. Delete files first (run_command rm).`,
        );
      }
    }
    // Never a setuid or setgid bit: a file the worker writes must not carry one (a root worker's
    // would be a setuid-root binary).
    const mode = existing?.isFile() ? existing.mode & 0o1777 : undefined;
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
    const real = path.join(folder.real, name);
    return {
      real,
      relative: relativeToHome(home, real),
      created: existing === undefined,
      bytes,
      addedBytes: bytes - replacedBytes,
    };
  } catch (error) {
    await temporary?.close().catch(() => undefined);
    await unlink(temporaryPath).catch(() => undefined);
    throw error;
  } finally {
    folder.close();
  }
}
