// PostgreSQL refuses U+0000 in text and jsonb, and a lone UTF-16 surrogate is not text at all (it
// cannot be encoded as UTF-8): a body carrying either is refused with a 400 naming the field, before
// anything is stored or run. Lookarounds of one character: linear in the text's length.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The message of a field whose text `isStorableText` refuses. */
export const STORABLE_TEXT_ERROR = 'must not contain a NUL character (U+0000) or a lone UTF-16 surrogate';

/** Whether `text` can be stored as it is: no NUL character, no lone surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/**
 * Whether every string and every key of a parsed JSON `value` is storable text (`isStorableText`).
 *
 * Contract: walks the value with a stack of its own, so a value nested as deep as a body may be
 * (it was parsed from one) cannot overflow the call stack; each string is read once.
 */
export function isStorableJson(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      if (!isStorableText(current)) return false;
    } else if (Array.isArray(current)) {
      for (const item of current) pending.push(item);
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        if (!isStorableText(key)) return false;
        pending.push(item);
      }
    }
  }
  return true;
}
