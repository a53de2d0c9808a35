import { isUtf8 } from 'node:buffer';
import { openFileForRead, resolveAgentHome } from '../paths/agent-home';
import { readUpTo } from '../paths/checked-open';
import { HomePathError } from '../paths/home-path-error';
import { binaryKind } from './read-text-file';

/**
 * A file inside the home as an operator reviewing a `write_file` over it would see it: `text` whole,
 * `cut` (its first `maxBytes` at most, cut before a character; `bytes` is the whole size), `binary`
 * (not UTF-8 text, or holding a NUL: its size), `missing` (the write creates it) or `unreadable`
 * (outside the home, a directory or special file, ...: why, in at most 500 characters).
 */
export type FileBeforeWrite =
  | { path: string; state: 'text' | 'cut'; text: string; bytes: number }
  | { path: string; state: 'binary'; bytes: number }
  | { path: string; state: 'missing' }
  | { path: string; state: 'unreadable'; reason: string };

/** The start of `bytes`, at most `maxBytes`, ending before a character rather than inside one. */
function wholeCharacters(bytes: Buffer, maxBytes: number): Buffer {
  if (bytes.length <= maxBytes) return bytes;
  let end = maxBytes;
  // UTF-8 continuation bytes are 10xxxxxx: step back to the start of the character they continue.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end);
}

/**
 * Reads the file `userPath` names inside `home` (the agent's home, as `createComputerTools` takes
 * it) for review: at most `maxBytes` (plus a character's three) are read, whatever the file's size.
 *
 * Contract: confined to the home exactly as the file tools are (symlinks out of it, `..` and special
 * files are `unreadable`, never read); never throws for the file's sake (a missing home is
 * `unreadable` too); `text` holds valid UTF-8 of at most `maxBytes` bytes, with no NUL.
 *
 * @example
 * const before = await readFileBeforeWrite(agent.home, params.path, { maxBytes: 64 * 1024 });
 * if (before.state === 'text') showDiff(before.text, params.content);
 */
export async function readFileBeforeWrite(
  home: string,
  userPath: string,
  options: { maxBytes: number },
): Promise<FileBeforeWrite> {
  const path = userPath;
  let opened: Awaited<ReturnType<typeof openFileForRead>>;
  try {
    opened = await openFileForRead(resolveAgentHome(home), userPath);
  } catch (error) {
    if (error instanceof HomePathError && error.code === 'not-found') return { path, state: 'missing' };
    const reason = error instanceof Error ? error.message : String(error);
    // The message names the path, which may be long: a reason is a line, not a document.
    return { path, state: 'unreadable', reason: reason.length > 500 ? `${reason.slice(0, 499)}…` : reason };
  }
  try {
    const size = opened.size;
    // A character's worth more than kept: enough to tell where the last whole character ends.
    const bytes = await readUpTo(opened.handle, Math.min(size, options.maxBytes + 3));
    if (binaryKind(bytes) !== undefined || bytes.includes(0)) return { path, state: 'binary', bytes: size };
    const kept = wholeCharacters(bytes, options.maxBytes);
    if (!isUtf8(kept)) return { path, state: 'binary', bytes: size };
    const text = kept.toString('utf8');
    return kept.length === size
      ? { path, state: 'text', text, bytes: size }
      : { path, state: 'cut', text, bytes: size };
  } finally {
    await opened.handle.close();
  }
}
