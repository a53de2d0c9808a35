/** A slice of a text cut at UTF-8 byte offsets, on character boundaries. */
export interface Utf8Slice {
  /** The text of the slice. */
  text: string;
  /** Its first byte in the whole text (the offset asked for, moved onto a character boundary). */
  start: number;
  /** The byte after its last one. */
  end: number;
  /** The whole text's size in bytes. */
  total: number;
}

/** True for a UTF-8 continuation byte (`10xxxxxx`): not a character boundary. */
function inside(bytes: Uint8Array, index: number): boolean {
  return index < bytes.length && ((bytes[index] ?? 0) & 0xc0) === 0x80;
}

/**
 * At most `maxBytes` of `text`'s UTF-8 from byte `offset`, never splitting a character: an offset inside
 * a character moves forward to the next one, an end inside one moves back (or, when the slice would be
 * empty, forward, so a reader always makes progress). Linear in the text's size.
 */
export function sliceUtf8(text: string, offset: number, maxBytes: number): Utf8Slice {
  const bytes = Buffer.from(text, 'utf8');
  let start = Math.min(offset, bytes.length);
  while (inside(bytes, start)) start += 1;
  let end = Math.min(bytes.length, start + maxBytes);
  while (end > start && inside(bytes, end)) end -= 1;
  if (end === start && start < bytes.length) {
    end = start + 1;
    while (inside(bytes, end)) end += 1;
  }
  return { text: bytes.subarray(start, end).toString('utf8'), start, end, total: bytes.length };
}
