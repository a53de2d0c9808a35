import type { ScheduleRecord } from '@switchyard/control-plane';
import { readDaemon, recordOfView } from '../running-daemon';
import { agentListCommand } from './read-only-view';

/**
 * `switchyard schedules list [--agent NAME] [--all]`: the agent's schedules from the control
 * plane (active ones; `--all` adds cancelled and finished ones). Read-only.
 */
export const schedulesListCommand = agentListCommand({
  read: (controlPlane, agentId, all) =>
    controlPlane.schedules.listSchedules({ agentId, includeInactive: all }),
  readDaemon: async (daemon, agentId, all) => {
    const query = new URLSearchParams({ agent: agentId, ...(all ? { all: 'true' } : {}) });
    const body = await readDaemon(daemon, `/v1/schedules?${query}`, 'schedules');
    return ((body?.items ?? []) as Array<Record<string, unknown>>).map((item) =>
      recordOfView<ScheduleRecord>(item),
    );
  },
  none: (agentId, all) => `Agent ${agentId} has no ${all ? '' : 'active '}schedules.`,
  heading: (schedules, agentId, all) =>
    `${schedules.length} ${all ? '' : 'active '}schedule${schedules.length === 1 ? '' : 's'} of agent ${agentId}:`,
  describe: (schedule) => {
    const when = schedule.kind === 'cron' ? `cron "${schedule.cron}"` : `once at ${schedule.runAt}`;
    const lines = [`- ${schedule.name} (${schedule.id}) ${schedule.status}: ${when} in ${schedule.timeZone}`];
    if (schedule.nextFireTimes.length > 0) lines.push(`  next: ${schedule.nextFireTimes.join(', ')}`);
    lines.push(`  prompt: ${JSON.stringify(schedule.prompt)}`);
    return lines.join('\n');
  },
});
