import type { ScheduleRecord } from './schedule-record';
import { formatInTimeZone, nextFireTimes, type ScheduleTiming } from './schedule-timing';

/** A row of `switchyard.schedules` as the drivers return it. */
export interface ScheduleRow {
  id: string;
  agent_id: string;
  name: string;
  prompt: string;
  kind: 'cron' | 'once';
  cron: string | null;
  time_zone: string;
  run_at: Date | null;
  status: 'active' | 'cancelled' | 'finished';
  next_fire_at: Date | null;
  created_at: Date;
}

/** The columns `ScheduleRow` reads. */
export const SCHEDULE_COLUMNS =
  'id, agent_id, name, prompt, kind, cron, time_zone, run_at, status, next_fire_at, created_at';

/** The timing of a stored schedule. */
export function rowTiming(row: ScheduleRow): ScheduleTiming {
  return row.kind === 'cron'
    ? { kind: 'cron', cron: row.cron ?? '', timeZone: row.time_zone }
    : { kind: 'once', runAt: new Date(row.run_at ?? 0), timeZone: row.time_zone };
}

/** Maps a row to the record callers see, with the next three fire times after `now`. */
export function toScheduleRecord(row: ScheduleRow, now: Date): ScheduleRecord {
  const upcoming: Date[] = [];
  if (row.status === 'active') {
    // A slot already due but not yet fired by the scheduler is still the next fire.
    if (row.next_fire_at !== null && row.next_fire_at.getTime() <= now.getTime())
      upcoming.push(row.next_fire_at);
    upcoming.push(...nextFireTimes(rowTiming(row), now, 3 - upcoming.length));
  }
  return {
    id: row.id,
    agentId: row.agent_id,
    name: row.name,
    prompt: row.prompt,
    kind: row.kind,
    cron: row.cron,
    timeZone: row.time_zone,
    runAt: row.run_at === null ? null : formatInTimeZone(row.run_at, row.time_zone),
    status: row.status,
    nextFireTimes: upcoming.map((date) => formatInTimeZone(date, row.time_zone)),
    createdAt: row.created_at.toISOString(),
  };
}
