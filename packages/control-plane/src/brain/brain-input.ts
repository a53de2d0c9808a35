import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkStoredText, toStorableText } from '../values/check-stored-value';

/** The largest title, in UTF-8 bytes. */
const MAX_TITLE_BYTES = 300;
/** Tags per page, and the largest tag in UTF-8 bytes. */
const MAX_TAGS = 20;
const MAX_TAG_BYTES = 64;

/** A page id: a UUID. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A title as stored: one line (any run of whitespace becomes one space), at most 300 bytes. */
export function checkTitle(value: unknown): string {
  if (typeof value !== 'string') throw new ControlPlaneInputError('title', 'must be a string');
  return checkStoredText('title', toStorableText(value).replace(/\s+/g, ' ').trim(), {
    maxBytes: MAX_TITLE_BYTES,
  });
}

/** Tags as stored: lower case, spaces as `-`, without repeats, at most 20 of at most 64 bytes. */
export function checkTags(value: unknown, field = 'tags'): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ControlPlaneInputError(field, 'must be an array of strings');
  if (value.length > MAX_TAGS) {
    throw new ControlPlaneInputError(
      field,
      `has ${value.length} tags; at most ${MAX_TAGS} are kept per page`,
    );
  }
  const tags: string[] = [];
  for (const [index, tag] of value.entries()) {
    if (typeof tag !== 'string') throw new ControlPlaneInputError(`${field}[${index}]`, 'must be a string');
    const normalised = checkStoredText(
      `${field}[${index}]`,
      toStorableText(tag).trim().toLowerCase().replace(/\s+/g, '-'),
      { maxBytes: MAX_TAG_BYTES },
    );
    if (!tags.includes(normalised)) tags.push(normalised);
  }
  return tags;
}

/** Whether two tag lists are the same, in order. */
export function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag, index) => tag === b[index]);
}

/** The refusal of a title another active page of the agent has. */
export function titleTaken(title: string, otherPageId?: string): ControlPlaneInputError {
  return new ControlPlaneInputError(
    'title',
    otherPageId === undefined
      ? `another of your pages is titled ${JSON.stringify(title)}; choose another title or rewrite that page`
      : `your page ${otherPageId} is titled ${JSON.stringify(title)}; rewrite that page (pageId ${otherPageId}) or choose another title`,
  );
}
