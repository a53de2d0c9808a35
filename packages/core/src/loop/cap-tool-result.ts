import type { AgentToolResult, ToolResultContentPart } from '../tool/worker-agent-tool';

/** The default of `runAgentLoop`'s `maxToolResultBytes`: 64 KiB of text per tool result. */
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 64 * 1024;

/**
 * The most bytes of images one tool result sends the model: 4 MiB of data URLs (each with its part's
 * envelope). Images past it, in order, are replaced by a line saying so.
 */
export const DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES = 4 * 1024 * 1024;

/** The smallest `maxToolResultBytes` accepted: room for the note and some of the result. */
export const MIN_TOOL_RESULT_BYTES = 1024;

// What one text part costs in the request besides its text: `{"type":"input_text","text":""}` and the
// comma after it. A result of a million one-byte parts is 32 MB to the model, not 1 MB.
const TEXT_PART_ENVELOPE_BYTES = 32;
// The same for an image: `{"type":"input_image","image_url":"data:;base64,","detail":"auto"}` and a
// comma; its media type and data are counted on top.
const IMAGE_PART_ENVELOPE_BYTES = 68;

/**
 * How a tool result's text was cut to the loop's byte limit (`maxToolResultBytes`), and how many of
 * its images were left out. For content parts, bytes count each text part's envelope too (32 bytes:
 * what the part costs the model besides its text).
 */
export interface ToolResultCut {
  /** UTF-8 bytes of text the result had (with its text parts' envelopes). */
  originalBytes: number;
  /** UTF-8 bytes of text the model sees, the note included (at most `limitBytes`). */
  keptBytes: number;
  /** UTF-8 bytes removed from the middle. */
  cutBytes: number;
  /** The limit in force. */
  limitBytes: number;
  /** Images replaced by a line because the result's images passed their limit; absent when none. */
  omittedImages?: number;
}

/** A result after the cap: the same object when nothing was cut. */
export interface CappedToolResult {
  /** The result the model sees. */
  result: AgentToolResult;
  /** What was cut, when anything was. */
  cut?: ToolResultCut;
}

const hasBuffer = typeof Buffer !== 'undefined';

/** UTF-8 length of `text`; a lone surrogate counts 3 bytes, as encoders write U+FFFD for it. */
function utf8Length(text: string): number {
  if (hasBuffer) return Buffer.byteLength(text, 'utf8');
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The longest prefix of `text` of at most `budget` UTF-8 bytes, ending on a code point boundary
 * (a surrogate pair is never split). Reads only the prefix it keeps.
 */
function headWithin(text: string, budget: number): { text: string; bytes: number } {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    let size: number;
    let units = 1;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1))) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > budget) break;
    bytes += size;
    index += units;
  }
  return { text: text.slice(0, index), bytes };
}

/** The longest suffix of `text` of at most `budget` UTF-8 bytes, starting on a code point boundary. */
function tailWithin(text: string, budget: number): { text: string; bytes: number } {
  let bytes = 0;
  let index = text.length;
  while (index > 0) {
    const code = text.charCodeAt(index - 1);
    let size: number;
    let units = 1;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (isLowSurrogate(code) && index >= 2 && isHighSurrogate(text.charCodeAt(index - 2))) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > budget) break;
    bytes += size;
    index -= units;
  }
  return { text: text.slice(index), bytes };
}

function cutNote(cutBytes: number, originalBytes: number, limitBytes: number): string {
  return (
    `\n\n[... ${cutBytes} bytes cut from the middle of this result: it had ${originalBytes} bytes and ` +
    `at most ${limitBytes} are shown. If the tool takes an offset, a range or a page, call it again ` +
    'for the part you need.]\n\n'
  );
}

/**
 * The note with its own size: the cut depends on the note's length and the note states the cut, so
 * the note is written with the largest cut it could state (the original size) and re-measured.
 */
function planCut(
  originalBytes: number,
  limitBytes: number,
  noteEnvelopeBytes = 0,
): { headBudget: number; tailBudget: number } {
  const noteBytes = utf8Length(cutNote(originalBytes, originalBytes, limitBytes)) + noteEnvelopeBytes;
  const budget = Math.max(0, limitBytes - noteBytes);
  // Head and tail alike: the head says what the result is, the tail often how it ended (an exit
  // status, an error, a "read on" footer).
  const headBudget = Math.ceil(budget / 2);
  return { headBudget, tailBudget: budget - headBudget };
}

function capText(text: string, limitBytes: number): { text: string; cut?: ToolResultCut } {
  // One UTF-16 unit is at most 3 UTF-8 bytes: most results need no counting at all.
  if (text.length * 3 <= limitBytes) return { text };
  const originalBytes = utf8Length(text);
  if (originalBytes <= limitBytes) return { text };
  const { headBudget, tailBudget } = planCut(originalBytes, limitBytes);
  const head = headWithin(text, headBudget);
  const tail = tailWithin(text, tailBudget);
  const cutBytes = originalBytes - head.bytes - tail.bytes;
  const note = cutNote(cutBytes, originalBytes, limitBytes);
  const capped = `${head.text}${note}${tail.text}`;
  return {
    text: capped,
    cut: { originalBytes, keptBytes: head.bytes + utf8Length(note) + tail.bytes, cutBytes, limitBytes },
  };
}

function capParts(
  parts: readonly ToolResultContentPart[],
  limitBytes: number,
): { parts: ToolResultContentPart[]; cut: ToolResultCut } | undefined {
  let units = 0;
  let textParts = 0;
  for (const part of parts) {
    if (part.type !== 'text') continue;
    units += part.text.length;
    textParts += 1;
  }
  if (units * 3 + textParts * TEXT_PART_ENVELOPE_BYTES <= limitBytes) return undefined;
  const sizes = parts.map((part) =>
    part.type === 'text' ? utf8Length(part.text) + TEXT_PART_ENVELOPE_BYTES : 0,
  );
  const originalBytes = sizes.reduce((sum, size) => sum + size, 0);
  if (originalBytes <= limitBytes) return undefined;
  // The note is a part of its own, with its envelope.
  const { headBudget, tailBudget } = planCut(originalBytes, limitBytes, TEXT_PART_ENVELOPE_BYTES);
  const textOf = (index: number) => {
    const part = parts[index];
    return part?.type === 'text' ? part.text : undefined;
  };
  // A part cut into keeps its envelope: only what is left after it goes to its text.
  const cutInto = (text: string, budget: number, within: typeof headWithin) => {
    const kept = within(text, Math.max(0, budget - TEXT_PART_ENVELOPE_BYTES));
    return { text: kept.text, bytes: kept.text === '' ? 0 : kept.bytes + TEXT_PART_ENVELOPE_BYTES };
  };

  // The text parts are one stream for the cut. `head` is the part the head cuts into (every text
  // part before it is kept whole), `tail` the part the tail cuts into (every one after it is kept).
  let headLeft = headBudget;
  let headBytes = 0;
  let head = 0;
  let headText = '';
  for (; head < parts.length; head += 1) {
    const text = textOf(head);
    if (text === undefined) continue;
    const size = sizes[head] as number;
    if (size <= headLeft) {
      headLeft -= size;
      headBytes += size;
      continue;
    }
    const kept = cutInto(text, headLeft, headWithin);
    headText = kept.text;
    headBytes += kept.bytes;
    break;
  }
  let tailLeft = tailBudget;
  let tailBytes = 0;
  let tail = parts.length - 1;
  for (; tail > head; tail -= 1) {
    const size = sizes[tail] as number;
    if (textOf(tail) === undefined || size <= tailLeft) {
      tailLeft -= size;
      tailBytes += size;
      continue;
    }
    break;
  }
  // The total is over the limit, so the head stops inside a text part and the tail cuts into one.
  const tailPart = textOf(tail) ?? '';
  const tailSource = tail === head ? tailPart.slice(headText.length) : tailPart;
  const tailKept = cutInto(tailSource, tailLeft, tailWithin);
  tailBytes += tailKept.bytes;

  const cutBytes = Math.max(0, originalBytes - headBytes - tailBytes);
  const note = cutNote(cutBytes, originalBytes, limitBytes);
  const capped: ToolResultContentPart[] = parts.slice(0, head);
  if (headText !== '') capped.push({ type: 'text', text: headText });
  capped.push({ type: 'text', text: note });
  // Images between the cuts are not text: they stay, after the note.
  for (let index = head + 1; index < tail; index += 1) {
    const part = parts[index] as ToolResultContentPart;
    if (part.type !== 'text') capped.push(part);
  }
  if (tailKept.text !== '') capped.push({ type: 'text', text: tailKept.text });
  capped.push(...parts.slice(tail + 1));
  return {
    parts: capped,
    cut: {
      originalBytes,
      keptBytes: headBytes + utf8Length(note) + TEXT_PART_ENVELOPE_BYTES + tailBytes,
      cutBytes,
      limitBytes,
    },
  };
}

/**
 * Keeps a result's images, in order, while their data URLs (and envelopes) total at most
 * `maxImageBytes`; each one past it becomes a line naming its type and size. Linear, no copy of data.
 */
function limitImages(
  parts: readonly ToolResultContentPart[],
  maxImageBytes: number,
): { parts: readonly ToolResultContentPart[]; omitted: number } {
  let total = 0;
  let omitted = 0;
  let limited: ToolResultContentPart[] | undefined;
  for (const [index, part] of parts.entries()) {
    if (part.type !== 'image') continue;
    const bytes = IMAGE_PART_ENVELOPE_BYTES + part.mimeType.length + part.data.length;
    if (total + bytes <= maxImageBytes) {
      total += bytes;
      continue;
    }
    limited ??= parts.slice();
    omitted += 1;
    limited[index] = {
      type: 'text',
      text: `[image (${part.mimeType.slice(0, 100)}, ${part.data.length} bytes of base64) omitted: the images of one tool result may send the model at most ${maxImageBytes} bytes]`,
    };
  }
  return { parts: limited ?? parts, omitted };
}

/** What `capToolResult` may be told besides the text limit. */
export interface CapToolResultOptions {
  /** Most bytes of images (data URLs and envelopes) one result sends. Default 4 MiB. */
  maxImageBytes?: number;
}

/**
 * Caps the text of a tool result at `limitBytes` UTF-8 bytes, keeping its head and tail and putting
 * a note in between that says how much was cut and how to get the rest. A string is cut as one
 * text; text parts are cut as one stream, each counting its envelope too (32 bytes: a result of many
 * tiny parts costs the model far more than its text). Images are kept in order while their data URLs
 * total at most `maxImageBytes` (4 MiB by default); each one past it becomes a line naming its type
 * and size. Cuts fall on code point boundaries: a surrogate pair is never split.
 *
 * Contract: returns the very same result when nothing is cut; otherwise a copy whose content is at
 * most `limitBytes` bytes of text (envelopes included) and `maxImageBytes` of images, and `cut` saying
 * what was removed. Linear in the result's size, never throws.
 */
export function capToolResult(
  result: AgentToolResult,
  limitBytes: number,
  options: CapToolResultOptions = {},
): CappedToolResult {
  const { content } = result;
  if (typeof content === 'string') {
    const capped = capText(content, limitBytes);
    if (capped.cut === undefined) return { result };
    return { result: { ...result, content: capped.text }, cut: capped.cut };
  }
  const images = limitImages(content, options.maxImageBytes ?? DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES);
  const capped = capParts(images.parts, limitBytes);
  if (capped === undefined && images.omitted === 0) return { result };
  const parts = capped?.parts ?? [...images.parts];
  const omitted = images.omitted === 0 ? {} : { omittedImages: images.omitted };
  const textBytes = images.parts.reduce(
    (sum, part) => sum + (part.type === 'text' ? utf8Length(part.text) + TEXT_PART_ENVELOPE_BYTES : 0),
    0,
  );
  const cut: ToolResultCut = capped?.cut ?? {
    originalBytes: textBytes,
    keptBytes: textBytes,
    cutBytes: 0,
    limitBytes,
  };
  return { result: { ...result, content: parts }, cut: { ...cut, ...omitted } };
}
