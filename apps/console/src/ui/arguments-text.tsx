import type { ComponentChildren } from 'preact';

/** A run of this many spaces or more is shown as a marked count, not as blank space. */
const SPACE_RUN = 16;

// Characters that show nothing, or reorder what follows, yet change what a command does: each is
// named where it is. Spaces come in runs; a long run can push the rest of a line out of sight.
const HIDING = new RegExp(
  ` {${SPACE_RUN},}|[\\u00AD\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2069\\uFEFF]`,
  'g',
);

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Text an operator must read whole (a held call's arguments), in a `<pre>`: every long run of spaces
 * and every invisible or direction-changing character is shown as a marked label saying what is
 * there (`[70,000 spaces]`, `[U+202E]`), so nothing can hide a part of it.
 */
export function ArgumentsText({ text, label }: { text: string; label: string }) {
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const match of text.matchAll(HIDING)) {
    const at = match.index;
    if (at > last) parts.push(text.slice(last, at));
    const found = match[0];
    parts.push(
      <mark class="hidden-text" key={at}>
        {found.startsWith(' ') ? `[${found.length.toLocaleString('en-US')} spaces]` : `[${codePoint(found)}]`}
      </mark>,
    );
    last = at + found.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return (
    <pre class="arguments" title={label}>
      {parts}
    </pre>
  );
}
