import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an `Authorization` header carries `Bearer <expected>`. Both sides are hashed to equal
 * lengths first, so the comparison takes the same time whatever the header holds.
 */
export function checkBearerToken(header: string | undefined, expected: string): boolean {
  const match = /^Bearer[ ]+(.+)$/i.exec(header ?? '');
  const given = match?.[1]?.trim() ?? '';
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  const same = timingSafeEqual(digest(given), digest(expected));
  return same && given.length > 0;
}
