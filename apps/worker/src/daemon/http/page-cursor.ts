/** A position in a list ordered newest first: the `createdAt` and `id` of the last row of a page. */
export interface PagePosition {
  /** The row's creation time, ISO 8601 UTC to the microsecond (as the control plane gives it). */
  createdAt: string;
  /** The row's id (`turn_…`, `approval_…`). */
  id: string;
}

/** The alphabet of a cursor: base64url without padding. */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,400}$/;

const UTC_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?Z$/;
const RESOURCE_ID = /^[A-Za-z0-9_-]{1,80}$/;

/** Whether `text` names an instant that exists: a real day of a year from 1 to 9999, a real time. */
function isUtcTime(text: string): boolean {
  const parts = UTC_TIME.exec(text);
  if (parts === null) return false;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return false;
  // Day 0 of the next month is the last day of this one (Date.UTC reads years 0 to 99 as 1900s, so
  // the year is set on its own).
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return day >= 1 && day <= last.getUTCDate();
}

/** The opaque cursor of a position: what a list answers as `nextCursor`. */
export function encodePageCursor(position: PagePosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id]), 'utf8').toString('base64url');
}

/**
 * The position a `cursor` from `encodePageCursor` stands for, or undefined when it is not one: text
 * outside base64url, bytes that are not JSON, JSON that is not `[time, id]`, a time that does not
 * exist (the 30th of February, hour 99) or an id that is not one.
 *
 * Contract: linear in the cursor's length; never throws. Whatever it returns the control plane can
 * query with, so a cursor a client made up is refused here, as the client's mistake.
 */
export function decodePageCursor(cursor: string): PagePosition | undefined {
  if (!CURSOR_PATTERN.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [createdAt, id] = parsed as unknown[];
  if (typeof createdAt !== 'string' || !isUtcTime(createdAt)) return undefined;
  if (typeof id !== 'string' || !RESOURCE_ID.test(id)) return undefined;
  return { createdAt, id };
}
