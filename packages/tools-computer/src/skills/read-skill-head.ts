import { isUtf8 } from 'node:buffer';
import { type AgentHome, openFileForRead } from '../paths/agent-home';

/** The head of a SKILL.md as text, or why it is not text. */
export type SkillHead =
  | {
      ok: true;
      /** The file's first bytes as text, up to its last complete line when the file is longer. */
      text: string;
      /** The file's size in bytes. */
      fileBytes: number;
      /** Whether `text` is the whole file. */
      whole: boolean;
    }
  | { ok: false; message: string };

const NEWLINE = 0x0a;

/**
 * Reads at most the first `maxBytes` of a SKILL.md in the home (opened as the file tools open files:
 * confined to the home, regular files only, never blocking on a FIFO). The front matter must lie
 * within them; the rest of the file (the instructions) is never read here. A head cut inside the file
 * ends at its last complete line.
 *
 * Contract: throws `HomePathError` as `openFileForRead` does (a missing file included); a head that
 * holds a NUL byte or is not UTF-8 is `{ ok: false }` with the reason.
 */
export async function readSkillHead(home: AgentHome, file: string, maxBytes: number): Promise<SkillHead> {
  const opened = await openFileForRead(home, file);
  try {
    const size = Math.min(opened.size, maxBytes);
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await opened.handle.read(buffer, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const whole = filled >= opened.size;
    const end = whole ? filled : buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
    const bytes = buffer.subarray(0, end);
    if (bytes.includes(0) || !isUtf8(bytes)) return { ok: false, message: 'SKILL.md is not UTF-8 text' };
    return { ok: true, text: bytes.toString('utf8'), fileBytes: opened.size, whole };
  } finally {
    await opened.handle.close();
  }
}
