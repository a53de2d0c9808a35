import { ControlPlaneInputError } from '@switchyard/control-plane';
import { HttpError } from './http-error';
import { decodePageCursor, encodePageCursor, type PagePosition } from './page-cursor';

// Paging of the lists ordered newest first (turns, approvals): a page starts after the opaque
// `cursor` the previous one gave out (`page-cursor.ts`).

/** The position a `cursor` names; a cursor this API did not give out is a 400 naming `cursor`. */
function decodeCursor(cursor: string | undefined): PagePosition | undefined {
  if (cursor === undefined) return undefined;
  const position = decodePageCursor(cursor);
  if (position !== undefined) return position;
  throw new HttpError(400, 'invalid_query', 'cursor: not a cursor this API gave out', ['cursor']);
}

/**
 * A list query the control plane refused, as the API's 400 naming the query field (its `before`
 * is the API's `cursor`); anything else is rethrown.
 */
export function refusedQuery(error: unknown): never {
  if (!ControlPlaneInputError.isInstance(error)) throw error;
  const field = error.field.startsWith('before') ? 'cursor' : error.field;
  throw new HttpError(400, 'invalid_query', `${field}: ${error.message}`, [field]);
}

/** Where a page of a list starts (after the `cursor` a previous page gave) and how long it is. */
export function pageOf(query: { cursor?: string | undefined; limit?: number | undefined }) {
  const before = decodeCursor(query.cursor);
  return { ...(before === undefined ? {} : { before }), limit: query.limit ?? 20 };
}

/** The `nextCursor` of a page that has a next one. */
export function nextCursorOf(next: { createdAt: string; id: string } | undefined) {
  return next === undefined ? {} : { nextCursor: encodePageCursor(next) };
}
