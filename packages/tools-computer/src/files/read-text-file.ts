import { isAscii, isUtf8 } from 'node:buffer';
import { type AgentHome, openFileForRead } from '../paths/agent-home';
import { readUpTo } from '../paths/checked-open';
import { HomePathError } from '../paths/home-path-error';
import { TimeSlice } from './time-slice';

/** A text file read from the home. */
export interface TextFile {
  /** The file's content, decoded as UTF-8. */
  text: string;
  /** The file's real path. */
  real: string;
  /** The path relative to the home. */
  relative: string;
  /** File mode bits. */
  mode: number;
  /** Size in bytes. */
  size: number;
}

/** First bytes of common binary formats, and what to call them. */
export const SIGNATURES: ReadonlyArray<readonly [string, readonly number[]]> = [
  ['a PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['a JPEG image', [0xff, 0xd8, 0xff]],
  ['a GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['a PDF document', [0x25, 0x50, 0x44, 0x46]],
  ['a ZIP archive', [0x50, 0x4b, 0x03, 0x04]],
  ['a gzip archive', [0x1f, 0x8b]],
  ['an ELF executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['a WebAssembly module', [0x00, 0x61, 0x73, 0x6d]],
];

/** Names a binary file's kind from its first bytes, or undefined for text. */
export function binaryKind(bytes: Uint8Array): string | undefined {
  for (const [kind, signature] of SIGNATURES) {
    if (signature.every((byte, index) => bytes[index] === byte)) return kind;
  }
  const sample = bytes.subarray(0, 8192);
  if (sample.includes(0)) return 'binary data';
  return undefined;
}

/** A text file read from the home, still as bytes (checked to be UTF-8 text). */
export interface TextBytes extends Omit<TextFile, 'text'> {
  /** The file's content: valid UTF-8, not binary. */
  bytes: Buffer;
}

/**
 * Validates UTF-8 natively, 1 MiB at a time with a yield in between: the check itself is fast, but
 * the first touch of a freshly read 10 MB buffer took 50-90 ms on the benchmark machine.
 */
async function isUtf8InStretches(bytes: Buffer): Promise<boolean> {
  const slice = new TimeSlice();
  for (let start = 0; start < bytes.length; ) {
    let end = Math.min(bytes.length, start + (1 << 20));
    // Cut before a character, never inside one (continuation bytes are 10xxxxxx).
    while (end < bytes.length && end > start && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
    if (end === start) return false;
    if (!isUtf8(bytes.subarray(start, end))) return false;
    start = end;
    if (slice.due) await slice.yield();
  }
  return true;
}

/**
 * Reads a text file inside the home without decoding it: `read_file` decodes only the lines it
 * shows, since turning a 10 MB file into a string held the event loop for 40-150 ms here.
 *
 * Contract: throws `HomePathError` for a path outside the home, a missing or special file, a file
 * larger than `maxBytes`, and a binary or non-UTF-8 file (naming what it looks like).
 */
export async function readTextBytes(home: AgentHome, userPath: string, maxBytes: number): Promise<TextBytes> {
  const opened = await openFileForRead(home, userPath);
  try {
    if (opened.size > maxBytes) {
      throw new HomePathError(
        `${userPath} is ${opened.size.toLocaleString('en-US')} bytes, more than the ${maxBytes.toLocaleString('en-US')}-byte limit; use run_command (head, tail, grep) or search_files on it.`,
      );
    }
    const bytes = await readUpTo(opened.handle, opened.size);
    const kind = binaryKind(bytes);
    if (kind !== undefined || !(await isUtf8InStretches(bytes))) {
      throw new HomePathError(
        `${userPath} is a binary file (${kind ?? 'not valid UTF-8 text'}, ${bytes.length.toLocaleString('en-US')} bytes); this tool only handles text. Inspect it with run_command (e.g. \`file\`, \`xxd ${userPath} | head\`).`,
      );
    }
    return { bytes, real: opened.real, relative: opened.relative, mode: opened.mode, size: opened.size };
  } finally {
    await opened.handle.close();
  }
}

const decoder = new TextDecoder('utf-8');

/**
 * Reads a text file inside the home.
 *
 * Contract: throws `HomePathError` for a path outside the home, a missing or special file, a file
 * larger than `maxBytes`, and a binary or non-UTF-8 file (naming what it looks like).
 */
export async function readTextFile(home: AgentHome, userPath: string, maxBytes: number): Promise<TextFile> {
  const { bytes, ...file } = await readTextBytes(home, userPath, maxBytes);
  // ASCII text (most source files) becomes a string by a plain copy into memory Node allocates
  // outside the JavaScript heap, which a long-running process reuses: about 1 ms for 10 MB here,
  // against 45-95 ms for the UTF-8 decoder writing a new heap string.
  const text = isAscii(bytes) ? bytes.toString('latin1') : decoder.decode(bytes);
  return { ...file, text };
}
