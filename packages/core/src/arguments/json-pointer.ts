/**
 * Escapes one key for a JSON pointer (RFC 6901: `~` as `~0`, then `/` as `~1`), so a key that
 * holds a slash names one property, not two.
 */
export function escapePointerSegment(segment: PropertyKey): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Undoes `escapePointerSegment` (`~1` first, so `~01` reads back as `~1`). */
export function unescapePointerSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/**
 * Formats a path as an RFC 6901 JSON pointer (`/items/0/name`); the root is the empty string.
 * Shared by the argument ladder, validation, strict projection and the control plane's checks.
 */
export function toJSONPointer(path: readonly PropertyKey[]): string {
  let pointer = '';
  for (const part of path) pointer += `/${escapePointerSegment(part)}`;
  return pointer;
}

/** How a pointer reads in a message: the root is named, since an empty string reads as nothing. */
export function describePointer(pointer: string): string {
  return pointer === '' ? '(root)' : pointer;
}
