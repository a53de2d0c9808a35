import { describe, expect, it } from 'vitest';
import { decodePageCursor, encodePageCursor } from './page-cursor';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('page cursors', () => {
  it('decode what they encode', () => {
    for (const position of [
      { createdAt: '2026-05-01T09:30:00.123456Z', id: 'turn_4d0c6a3e-0f3e-4a57-9d0e-2d6f3c1b8a10' },
      { createdAt: '2024-02-29T23:59:59Z', id: 'approval_9f1c2b7e-3d4a-4c5b-8e6f-7a8b9c0d1e2f' },
      { createdAt: '0001-01-01T00:00:00.1Z', id: 'a' },
    ]) {
      expect(decodePageCursor(encodePageCursor(position))).toEqual(position);
    }
  });

  it.each([
    ['', 'empty'],
    ['abc=', 'padded'],
    ['ab+c', 'not base64url'],
    ['a'.repeat(401), 'longer than any cursor given out'],
    [base64('{not json'), 'not JSON'],
    [base64('"ab"'), 'a JSON string'],
    [base64('["2024-01-01T00:00:00Z"]'), 'one element'],
    [base64('["2024-01-01T00:00:00Z","turn_x","extra"]'), 'three elements'],
    [base64('["2023-02-29T00:00:00Z","turn_x"]'), 'the 29th of February of a common year'],
    [base64('["2024-04-31T00:00:00Z","turn_x"]'), 'the 31st of April'],
    [base64('["2024-13-01T00:00:00Z","turn_x"]'), 'month 13'],
    [base64('["2024-01-01T24:00:00Z","turn_x"]'), 'hour 24'],
    [base64('["2024-01-01T00:00:60Z","turn_x"]'), 'second 60'],
    [base64('["0000-01-01T00:00:00Z","turn_x"]'), 'year 0'],
    [base64('["2024-01-01T00:00:00.1234567Z","turn_x"]'), 'finer than a microsecond'],
    [base64('["2024-01-01T00:00:00+01:00","turn_x"]'), 'not UTC'],
    [base64('["2024-01-01T00:00:00Z","a\\u0000b"]'), 'an id with a NUL'],
    [base64('["2024-01-01T00:00:00Z","\\ud800"]'), 'an id with a lone surrogate'],
    [base64(`["2024-01-01T00:00:00Z","${'a'.repeat(81)}"]`), 'an id over 80 characters'],
  ])('refuses %j (%s)', (cursor) => {
    expect(decodePageCursor(cursor)).toBeUndefined();
  });
});
