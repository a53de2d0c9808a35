import type { ScheduleRecord } from '@switchyard/control-plane';
import { readDaemon, recordOfView } from '../running-daemon';
import { agentListCommand } from './read-only-view';

// A one-shot schedule is finished once it fired: the default view keeps it this long after its time,
// so whoever made it sees that it fired (and its schedule id) instead of it vanishing.
const FIRED_ONE_SHOT_SHOWN_MS = 24 * 60 * 60 * 1000;

/** The default view: active schedules, and one-shots that fired in the last day. */
function defaultView(schedules: ScheduleRecord[], all: boolean, now = Date.now()): ScheduleRecord[] {
  if (all) return schedules;
  return schedules.filter(
    (schedule) =>
      schedule.status === 'active' ||
      (schedule.kind === 'once' &&
        schedule.status === 'finished' &&
        schedule.runAt !== null &&
        now - Date.parse(schedule.runAt) <= FIRED_ONE_SHOT_SHOWN_MS),
  );
}

/**
 * `switchyard schedules list [--agent NAME] [--all]`: the agent's schedules from the control
 * plane (active ones, and one-shots that fired in the last 24 hours; `--all` adds cancelled and
 * finished ones). Read-only.
 */
export const schedulesListCommand = agentListCommand({
  read: async (controlPlane, agentId, all) =>
    defaultView(await controlPlane.schedules.listSchedules({ agentId, includeInactive: true }), all),
  readDaemon: async (daemon, agentId, all) => {
    const query = new URLSearchParams({ agent: agentId, all: 'true' });
    const body = await readDaemon(daemon, `/v1/schedules?${query}`, 'schedules');
    const items = (body?.items ?? []) as Array<Record<string, unknown>>;
    return defaultView(
      items.map((item) => recordOfView<ScheduleRecord>(item)),
      all,
    );
  },
  none: (agentId, all) => `Agent ${agentId} has no ${all ? '' : 'active '}schedules.`,
  heading: (schedules, agentId, all) => {
    const count = `${schedules.length} ${all ? '' : 'active '}schedule${schedules.length === 1 ? '' : 's'}`;
    const fired = schedules.filter((schedule) => schedule.status !== 'active').length;
    // A one-shot that just fired is in the default view but no longer active: said, not hidden.
    return !all && fired > 0
      ? `${schedules.length} schedule${schedules.length === 1 ? '' : 's'} of agent ${agentId} (${fired} one-shot${fired === 1 ? '' : 's'} fired in the last 24 hours):`
      : `${count} of agent ${agentId}:`;
  },
  describe: (schedule) => {
    const when = schedule.kind === 'cron' ? `cron "${schedule.cron}"` : `once at ${schedule.runAt}`;
    const lines = [`- ${schedule.name} (${schedule.id}) ${schedule.status}: ${when} in ${schedule.timeZone}`];
    if (schedule.nextFireTimes.length > 0) lines.push(`  next: ${schedule.nextFireTimes.join(', ')}`);
    lines.push(`  prompt: ${JSON.stringify(schedule.prompt)}`);
    return lines.join('\n');
  },
});
