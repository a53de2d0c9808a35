import { rejectionOf, thrownBy } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkPageCursor, checkPageLimit, isUtcTime } from './page-rows';

const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;

describe('page cursors and limits', () => {
  it('takes an existing UTC time to the microsecond, leap days included', () => {
    for (const time of [
      '2024-02-29T23:59:59.999999Z',
      '2026-12-31T00:00:00Z',
      '0001-01-01T00:00:00.1Z',
      '9999-12-31T23:59:59Z',
    ]) {
      expect(isUtcTime(time)).toBe(true);
    }
  });

  it.each([
    '2023-02-29T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-00-10T00:00:00Z',
    '2024-01-00T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:60Z',
    '0000-01-01T00:00:00Z',
    '2024-01-01T00:00:00.1234567Z',
    '2024-01-01T00:00:00+00:00',
    '2024-01-01 00:00:00Z',
    '2024-01-01T00:00:00Z\u0000',
  ])('refuses %j as a time', (time) => {
    expect(isUtcTime(time)).toBe(false);
  });

  it('names the part of a cursor that is bad', () => {
    expect(checkPageCursor({ createdAt: '2024-01-01T00:00:00Z', id: 'turn_x' }, TURN_ID)).toEqual({
      createdAt: '2024-01-01T00:00:00Z',
      id: 'turn_x',
    });
    const cases: Array<[unknown, string]> = [
      [null, 'before'],
      ['2024-01-01T00:00:00Z', 'before'],
      [{ createdAt: '2024-02-30T00:00:00Z', id: 'turn_x' }, 'before.createdAt'],
      [{ createdAt: 5, id: 'turn_x' }, 'before.createdAt'],
      [{ createdAt: '2024-01-01T00:00:00Z', id: 'a\u0000b' }, 'before.id'],
      [{ createdAt: '2024-01-01T00:00:00Z', id: '\ud800' }, 'before.id'],
      [{ createdAt: '2024-01-01T00:00:00Z' }, 'before.id'],
    ];
    for (const [cursor, field] of cases) {
      expect(thrownBy(() => checkPageCursor(cursor, TURN_ID), ControlPlaneInputError).field).toBe(field);
    }
  });

  it('takes a limit from 1 to 500', async () => {
    expect(checkPageLimit(undefined)).toBe(50);
    expect(checkPageLimit(500)).toBe(500);
    for (const limit of [0, 501, 1.5, Number.NaN]) {
      expect((await rejectionOf(async () => checkPageLimit(limit), ControlPlaneInputError)).field).toBe(
        'limit',
      );
    }
  });
});
