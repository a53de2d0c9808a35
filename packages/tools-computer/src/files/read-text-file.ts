import { isUtf8 } from 'node:buffer';
import { type AgentHome, openFileForRead } from '../paths/agent-home';
import { readUpTo } from '../paths/checked-open';
import { HomePathError } from '../paths/home-path-error';

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
    // isUtf8 validates in native code (well under a millisecond for 10 MB).
    if (kind !== undefined || !isUtf8(bytes)) {
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
  return { ...file, text: decoder.decode(bytes) };
}
