/** What one call's web-content marker holds, read back from a tool result. */
export interface MarkedContent {
  /** The tag with the call's boundary (`untrusted-web-content-<16 hex digits>`). */
  tag: string;
  /** The opening marker's attributes, as written (` source="..." title="..."`). */
  attributes: string;
  /** The text between the markers. */
  inner: string;
}

const MARKED = /<(untrusted-web-content-[0-9a-f]{16})([^>\n]*)>\n([\s\S]*)\n<\/\1>/;

/** The marked content of a result (the first marker), or undefined when it has none. */
export function readMarked(content: string): MarkedContent | undefined {
  const match = MARKED.exec(content);
  if (match === null) return undefined;
  return { tag: match[1] as string, attributes: match[2] as string, inner: match[3] as string };
}

/** Occurrences of `needle` in `text`. */
export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
