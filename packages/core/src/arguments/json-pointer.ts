/**
 * Formats a path as an RFC 6901 JSON pointer (`/items/0/name`); the root is the empty string.
 * Internal helper shared by the argument ladder and validation.
 */
export function toJSONPointer(path: readonly PropertyKey[]): string {
  let pointer = '';
  for (const part of path) {
    pointer += `/${String(part).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  }
  return pointer;
}

/** How a pointer reads in a message: the root is named, since an empty string reads as nothing. */
export function describePointer(pointer: string): string {
  return pointer === '' ? '(root)' : pointer;
}
