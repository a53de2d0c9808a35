import { describe, expect, it } from 'vitest';
import {
  formatInTimeZone,
  latestSlotAtOrBefore,
  nextFireTimes,
  parseScheduleTiming,
  type ScheduleTiming,
} from './schedule-timing';

const limits = { minimumIntervalSeconds: 60 };

function fires(cron: string, timeZone: string, after: string, count = 3): string[] {
  return nextFireTimes({ kind: 'cron', cron, timeZone }, new Date(after), count).map((date) =>
    formatInTimeZone(date, timeZone),
  );
}

describe('fire times in a time zone', () => {
  it('reads the cron in the schedule zone, following its offset through the year', () => {
    expect(fires('0 9 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z')).toEqual([
      '2026-03-28T09:00:00+01:00',
      '2026-03-29T09:00:00+02:00',
      '2026-03-30T09:00:00+02:00',
    ]);
    expect(fires('0 9 * * 1-5', 'Asia/Kolkata', '2026-01-02T12:00:00Z')).toEqual([
      '2026-01-05T09:00:00+05:30',
      '2026-01-06T09:00:00+05:30',
      '2026-01-07T09:00:00+05:30',
    ]);
    expect(fires('0 0 * * *', 'UTC', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-02T00:00:00Z']);
  });

  // Each case counts three fire times from `after` and shows them in the schedule's zone.
  it.each([
    {
      case: 'fires a wall time skipped by spring-forward once, just after the jump',
      // 2026-03-08 02:30 does not exist in New York: clocks go from 02:00 EST to 03:00 EDT.
      cron: '30 2 * * *',
      timeZone: 'America/New_York',
      after: '2026-03-07T12:00:00Z',
      expected: ['2026-03-08T03:00:00-04:00', '2026-03-09T02:30:00-04:00', '2026-03-10T02:30:00-04:00'],
    },
    {
      case: 'fires a daily wall time repeated by fall-back once',
      // 2026-11-01 01:30 happens twice in New York (EDT, then EST).
      cron: '30 1 * * *',
      timeZone: 'America/New_York',
      after: '2026-10-31T12:00:00Z',
      expected: ['2026-11-01T01:30:00-04:00', '2026-11-02T01:30:00-05:00', '2026-11-03T01:30:00-05:00'],
    },
    {
      case: 'handles southern-hemisphere DST',
      // Sydney moves from AEST (+10) to AEDT (+11) on 2026-10-04.
      cron: '0 8 * * *',
      timeZone: 'Australia/Sydney',
      after: '2026-10-02T12:00:00Z',
      expected: ['2026-10-03T08:00:00+10:00', '2026-10-04T08:00:00+11:00', '2026-10-05T08:00:00+11:00'],
    },
  ])('$case', ({ cron, timeZone, after, expected }) => {
    expect(fires(cron, timeZone, after)).toEqual(expected);
  });

  it('keeps an interval schedule on real time across fall-back', () => {
    const times = nextFireTimes(
      { kind: 'cron', cron: '0 * * * *', timeZone: 'America/New_York' },
      new Date('2026-11-01T04:30:00Z'),
      3,
    );
    expect(times.map((date) => date.toISOString())).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
    ]);
    expect(times.map((date) => formatInTimeZone(date, 'America/New_York'))).toEqual([
      '2026-11-01T01:00:00-04:00',
      '2026-11-01T01:00:00-05:00',
      '2026-11-01T02:00:00-05:00',
    ]);
  });

  it('handles half-hour zones', () => {
    expect(fires('15 6 1 * *', 'Asia/Kathmandu', '2026-01-15T00:00:00Z', 1)).toEqual([
      '2026-02-01T06:15:00+05:45',
    ]);
  });

  it('picks the latest missed slot, so a long outage fires once', () => {
    const latest = latestSlotAtOrBefore('*/5 * * * *', 'UTC', new Date('2026-05-01T12:07:30Z'));
    expect(latest?.toISOString()).toBe('2026-05-01T12:05:00.000Z');
    expect(latestSlotAtOrBefore('*/5 * * * *', 'UTC', new Date('2026-05-01T12:10:00Z'))?.toISOString()).toBe(
      '2026-05-01T12:10:00.000Z',
    );
  });
});

describe('parsing and refusals', () => {
  const now = new Date('2026-06-01T12:00:00Z');

  it('accepts a cron with a zone and a one-shot with or without an offset', () => {
    expect(
      parseScheduleTiming({ cron: '0 9 * * 1-5', timeZone: 'Europe/Paris' }, { now, ...limits }),
    ).toEqual({
      kind: 'cron',
      cron: '0 9 * * 1-5',
      timeZone: 'Europe/Paris',
    });
    const zoned = parseScheduleTiming({ runAt: '2026-06-02T09:30:00+02:00' }, { now, ...limits }) as Extract<
      ScheduleTiming,
      { kind: 'once' }
    >;
    expect(zoned.runAt.toISOString()).toBe('2026-06-02T07:30:00.000Z');
    const local = parseScheduleTiming(
      { runAt: '2026-06-02T09:30', timeZone: 'America/Los_Angeles' },
      { now, ...limits },
    ) as Extract<ScheduleTiming, { kind: 'once' }>;
    expect(local.runAt.toISOString()).toBe('2026-06-02T16:30:00.000Z');
  });

  it('reads a one-shot wall time in a DST gap forward and an ambiguous one as the first occurrence', () => {
    const read = (runAt: string) =>
      (
        parseScheduleTiming({ runAt, timeZone: 'America/New_York' }, { now, ...limits }) as Extract<
          ScheduleTiming,
          { kind: 'once' }
        >
      ).runAt.toISOString();
    // 02:30 does not exist on 2027-03-14: it becomes 03:30 EDT, as Temporal's 'compatible' reading does.
    expect(read('2027-03-14T02:30')).toBe('2027-03-14T07:30:00.000Z');
    // 01:30 happens twice on 2027-11-07: the first (EDT) is taken.
    expect(read('2027-11-07T01:30')).toBe('2027-11-07T05:30:00.000Z');
  });

  it.each([
    [{ cron: '0 25 * * *' }, 'cron', /not a valid cron expression/],
    [{ cron: 'every day' }, 'cron', /5 fields/],
    [{ cron: '0 0 30 2 *' }, 'cron', /never fires/],
    [{ cron: '*/1 * * * *' }, 'cron', null],
    [{ cron: '0 9 * * *', timeZone: 'Europe/Atlantis' }, 'timeZone', /not an IANA time zone/],
    [{ runAt: '2026-06-01T11:59:59Z' }, 'runAt', /in the past/],
    [{ runAt: 'tomorrow at nine' }, 'runAt', /not an ISO 8601/],
    [{ cron: '0 9 * * *', runAt: '2026-06-02T09:30:00Z' }, 'runAt', /not both/],
    [{}, 'cron', /either a cron/],
  ])('refuses %j on %s', (input, field, message) => {
    const options = { now, minimumIntervalSeconds: message === null ? 300 : 60 };
    expect(() => parseScheduleTiming(input, options)).toThrow(
      expect.objectContaining({
        field,
        message: expect.stringMatching(message ?? /more often than the minimum interval of 300 s/),
      }),
    );
  });
});
