import { isUtf8 } from 'node:buffer';
import { type AgentHome, openFileForRead } from '../paths/agent-home';
import { HomePathError } from '../paths/home-path-error';
import { binaryKind } from './read-text-file';
import { TimeSlice } from './time-slice';

/** How much of the file is in memory at once: one buffer of this size, reused for every read. */
const CHUNK_BYTES = 64 * 1024;

/** What `scanTextLines` found. */
export interface ScannedTextFile {
  /** The path relative to the home. */
  relative: string;
  /** Lines in the file (a leading byte order mark is not content; a last line needs no newline). */
  totalLines: number;
}

/** Which lines `scanTextLines` hands over, and how much of each. */
export interface LineWindow {
  /** The first line handed over (1-based). */
  from: number;
  /** Most bytes of a line handed over (its start): the rest of a longer line is skipped. */
  keepBytes: number;
  /**
   * Receives each line from `from` on, in order, as at most `keepBytes` of its bytes (without the
   * newline), and whether it had more; returns false to stop taking lines (the scan goes on counting).
   */
  onLine(bytes: Uint8Array, cut: boolean): boolean;
}

/**
 * Where a chunk may be cut before an unfinished UTF-8 sequence at its end: the index of that
 * sequence's lead byte, or `length` when the chunk ends on a whole character.
 */
function completeUpTo(bytes: Uint8Array, length: number): number {
  for (let index = length - 1; index >= Math.max(0, length - 4); index -= 1) {
    const byte = bytes[index] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return index + needs > length ? index : length;
  }
  return length;
}

/**
 * Reads a text file inside the home once, in 64 KiB pieces through one reused buffer, checking that
 * it is text (not a known binary format, no NUL in its first 8 KiB, valid UTF-8 throughout),
 * counting its lines and handing the lines of `window` to the caller: a read holds 64 KiB of the
 * file and the lines it keeps, never the whole file, however many run at once.
 *
 * Contract: throws `HomePathError` for a path outside the home, a missing or special file, a file
 * larger than `maxBytes`, and a binary or non-UTF-8 file (naming what it looks like), as
 * `readTextBytes` does; the lines handed over before a late refusal are the caller's to drop.
 * Yields to the event loop every few milliseconds.
 */
export async function scanTextLines(
  home: AgentHome,
  userPath: string,
  maxBytes: number,
  window: LineWindow,
): Promise<ScannedTextFile> {
  const opened = await openFileForRead(home, userPath);
  const notText = (kind: string) =>
    new HomePathError(
      `${userPath} is a binary file (${kind}, ${opened.size.toLocaleString('en-US')} bytes); this tool only handles text. Inspect it with run_command (e.g. \`file\`, \`xxd ${userPath} | head\`).`,
    );
  try {
    if (opened.size > maxBytes) {
      throw new HomePathError(
        `${userPath} is ${opened.size.toLocaleString('en-US')} bytes, more than the ${maxBytes.toLocaleString('en-US')}-byte limit; use run_command (head, tail, grep) or search_files on it.`,
      );
    }
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES + 4);
    const slice = new TimeSlice();
    let carry = 0; // bytes of an unfinished character kept at the buffer's start
    let position = 0; // file offset of the next read
    let first = true;
    let line = 1; // the line the next byte belongs to
    let lineHasBytes = false; // the current line has a byte (a file ending in '\n' adds no line)
    let taking = window.from === 1;
    let kept: Buffer[] = [];
    let keptBytes = 0;
    let lineCut = false;
    const keep = (bytes: Uint8Array) => {
      if (!taking || lineCut) return;
      const room = window.keepBytes - keptBytes;
      if (bytes.length > room) lineCut = true;
      const part = bytes.subarray(0, Math.min(room, bytes.length));
      if (part.length > 0) {
        // A copy: the buffer is read into again.
        kept.push(Buffer.from(part));
        keptBytes += part.length;
      }
    };
    const endLine = () => {
      if (taking) taking = window.onLine(Buffer.concat(kept, keptBytes), lineCut);
      kept = [];
      keptBytes = 0;
      lineCut = false;
      line += 1;
      lineHasBytes = false;
      if (line === window.from) taking = true;
    };
    for (;;) {
      const { bytesRead } = await opened.handle.read(buffer, carry, CHUNK_BYTES, position);
      position += bytesRead;
      let length = carry + bytesRead;
      let start = 0;
      if (first) {
        first = false;
        const kind = binaryKind(buffer.subarray(0, length));
        if (kind !== undefined) throw notText(kind);
        // A leading byte order mark is not content.
        if (buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) start = 3;
      }
      const cut = bytesRead === 0 ? length : completeUpTo(buffer, length);
      if (!isUtf8(buffer.subarray(0, cut))) throw notText('not valid UTF-8 text');
      for (let index = start; index < cut; ) {
        const newline = buffer.indexOf(10, index);
        const lineEnd = newline === -1 || newline >= cut ? cut : newline;
        if (lineEnd > index) {
          lineHasBytes = true;
          keep(buffer.subarray(index, lineEnd));
        }
        if (lineEnd === cut) break;
        endLine();
        index = lineEnd + 1;
        if (slice.due) await slice.yield();
      }
      if (bytesRead === 0) {
        if (length > cut) throw notText('not valid UTF-8 text');
        break;
      }
      // The unfinished character's bytes go to the buffer's start, before the next read.
      carry = length - cut;
      buffer.copyWithin(0, cut, length);
      length = carry;
      if (slice.due) await slice.yield();
    }
    if (lineHasBytes) endLine();
    return { relative: opened.relative, totalLines: line - 1 };
  } finally {
    await opened.handle.close();
  }
}
