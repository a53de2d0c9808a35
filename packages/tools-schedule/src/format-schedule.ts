import type { ScheduleSummary } from './schedule-service';

/** One schedule as the model reads it: name, id, timing, next fire times and prompt. */
export function formatSchedule(schedule: ScheduleSummary): string {
  const timing =
    schedule.kind === 'cron'
      ? `cron "${schedule.cron ?? ''}" in ${schedule.timeZone}`
      : `once at ${schedule.runAt ?? '?'} (${schedule.timeZone})`;
  const next =
    schedule.nextFireTimes.length === 0
      ? `  ${schedule.status}: fires no more`
      : `  next: ${schedule.nextFireTimes.join(', ')}`;
  const prompt = schedule.prompt.length > 200 ? `${schedule.prompt.slice(0, 200)}…` : schedule.prompt;
  return `- ${schedule.name} (id ${schedule.id}): ${timing}\n${next}\n  prompt: ${prompt}`;
}
