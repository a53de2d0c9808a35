import { Cron } from 'croner';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';

/** When a schedule fires: a cron expression in an IANA zone, or once at an instant. */
export type ScheduleTiming =
  | { kind: 'cron'; cron: string; timeZone: string }
  | { kind: 'once'; runAt: Date; timeZone: string };

const ISO_LOCAL_OR_ZONED =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?<offset>Z|[+-]\d{2}:\d{2})?$/;
const INTERVAL_SAMPLE = 100;

/**
 * Checks an IANA time zone name.
 *
 * Contract: throws `ControlPlaneInputError` on field `timeZone` when the runtime does not know it.
 */
export function checkTimeZone(timeZone: string): string {
  try {
    // Keep the caller's spelling: ICU canonicalises some names (Asia/Kolkata -> Asia/Calcutta).
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    throw new ControlPlaneInputError(
      'timeZone',
      `${JSON.stringify(timeZone)} is not an IANA time zone (use a name such as "Europe/Berlin" or "UTC")`,
    );
  }
}

function compileCron(cron: string, timeZone: string): Cron {
  const trimmed = cron.trim();
  if (!trimmed.startsWith('@') && trimmed.split(/\s+/).length !== 5) {
    throw new ControlPlaneInputError(
      'cron',
      `${JSON.stringify(cron)} must have 5 fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5"`,
    );
  }
  try {
    return new Cron(trimmed, { timezone: timeZone, paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
    throw new ControlPlaneInputError(
      'cron',
      `${JSON.stringify(cron)} is not a valid cron expression: ${reason}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Parses and checks a schedule's timing: either `cron` (with `timeZone`, default `UTC`) or a
 * one-shot `runAt` ISO time. A `runAt` without an offset is read in `timeZone`.
 *
 * Contract: throws `ControlPlaneInputError` naming the field for: both or neither of `cron` and
 * `runAt`; an unknown time zone; a cron that is not 5 fields or does not parse; a cron that never
 * fires; a cron firing more often than `minimumIntervalSeconds`; a `runAt` that is not ISO 8601
 * or is not after `now`.
 */
export function parseScheduleTiming(
  input: { cron?: string | null; timeZone?: string | null; runAt?: string | null },
  options: { now: Date; minimumIntervalSeconds: number },
): ScheduleTiming {
  const hasCron = input.cron !== undefined && input.cron !== null && input.cron.trim() !== '';
  const hasRunAt = input.runAt !== undefined && input.runAt !== null && input.runAt.trim() !== '';
  if (hasCron === hasRunAt) {
    throw new ControlPlaneInputError(
      hasCron ? 'runAt' : 'cron',
      hasCron
        ? 'give either a cron expression or a one-shot runAt time, not both'
        : 'give either a cron expression (with a time zone) or a one-shot runAt ISO time',
    );
  }
  const timeZone = checkTimeZone(input.timeZone ?? 'UTC');
  if (hasCron) {
    const cron = (input.cron as string).trim();
    const compiled = compileCron(cron, timeZone);
    const upcoming = compiled.nextRuns(INTERVAL_SAMPLE, options.now);
    if (upcoming.length === 0) {
      throw new ControlPlaneInputError('cron', `${JSON.stringify(cron)} never fires`);
    }
    let shortest = Number.POSITIVE_INFINITY;
    for (let index = 1; index < upcoming.length; index += 1) {
      const gap = (upcoming[index] as Date).getTime() - (upcoming[index - 1] as Date).getTime();
      shortest = Math.min(shortest, gap);
    }
    if (shortest < options.minimumIntervalSeconds * 1000) {
      throw new ControlPlaneInputError(
        'cron',
        `${JSON.stringify(cron)} fires every ${shortest / 1000} s at times, more often than the minimum interval of ${options.minimumIntervalSeconds} s`,
      );
    }
    return { kind: 'cron', cron, timeZone };
  }
  const runAtText = (input.runAt as string).trim();
  const match = ISO_LOCAL_OR_ZONED.exec(runAtText);
  if (match === null) {
    throw new ControlPlaneInputError(
      'runAt',
      `${JSON.stringify(runAtText)} is not an ISO 8601 date-time such as "2026-05-01T09:30:00+02:00" or "2026-05-01T09:30" (read in timeZone)`,
    );
  }
  let runAt: Date | null;
  if (match.groups?.offset !== undefined) {
    // Slots are whole seconds, as cron times are.
    runAt = new Date(Math.floor(Date.parse(runAtText) / 1000) * 1000);
    if (Number.isNaN(runAt.getTime())) {
      throw new ControlPlaneInputError('runAt', `${JSON.stringify(runAtText)} is not a valid date-time`);
    }
  } else {
    // Croner reads an offset-less ISO time in the zone: a wall time in a DST gap moves forward by
    // the gap, an ambiguous one is its first occurrence (Temporal's 'compatible' reading).
    try {
      runAt = new Cron(runAtText, { timezone: timeZone, paused: true }).nextRun(new Date(0));
    } catch (error) {
      throw new ControlPlaneInputError('runAt', `${JSON.stringify(runAtText)} is not a valid date-time`, {
        cause: error,
      });
    }
    if (runAt === null) {
      throw new ControlPlaneInputError('runAt', `${JSON.stringify(runAtText)} is not a valid date-time`);
    }
  }
  if (runAt.getTime() <= options.now.getTime()) {
    throw new ControlPlaneInputError(
      'runAt',
      `${JSON.stringify(runAtText)} is in the past (now is ${formatInTimeZone(options.now, timeZone)}); give a future time`,
    );
  }
  return { kind: 'once', runAt, timeZone };
}

/** The next `count` fire times strictly after `after`; a one-shot yields at most one. */
export function nextFireTimes(timing: ScheduleTiming, after: Date, count: number): Date[] {
  if (timing.kind === 'once') return timing.runAt.getTime() > after.getTime() ? [timing.runAt] : [];
  return compileCron(timing.cron, timing.timeZone).nextRuns(count, after);
}

/**
 * The latest slot of a cron schedule at or before `now`: the one slot a schedule fires for when it
 * is found due, however many slots were missed while no worker ran.
 */
export function latestSlotAtOrBefore(cron: string, timeZone: string, now: Date): Date | null {
  const compiled = compileCron(cron, timeZone);
  // previousRuns is strictly before its reference and works in whole seconds.
  const [candidate] = compiled.previousRuns(1, new Date(now.getTime() + 1000));
  if (candidate === undefined) return null;
  if (candidate.getTime() <= now.getTime()) return candidate;
  return compiled.previousRuns(1, candidate)[0] ?? null;
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

/** Formats an instant as local ISO 8601 with the zone's offset, e.g. `2026-03-08T03:00:00-04:00`. */
export function formatInTimeZone(date: Date, timeZone: string): string {
  let formatter = partsFormatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormatters.set(timeZone, formatter);
  }
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(date)) parts[part.type] = part.value;
  const local = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  const wholeSeconds = Math.floor(date.getTime() / 1000) * 1000;
  const offsetMinutes = Math.round((Date.parse(`${local}Z`) - wholeSeconds) / 60_000);
  if (offsetMinutes === 0 && (timeZone === 'UTC' || timeZone === 'Etc/UTC')) return `${local}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  const hours = String(Math.floor(absolute / 60)).padStart(2, '0');
  const minutes = String(absolute % 60).padStart(2, '0');
  return `${local}${sign}${hours}:${minutes}`;
}
