import type { WorkerConfig } from '../config/worker-config';
import type { CommandIO } from '../run-text-turn';
import { readAgentList } from './read-only-view';

/**
 * `switchyard schedules list [--agent NAME] [--all]`: the agent's schedules from the control
 * plane (active ones; `--all` adds cancelled and finished ones). Read-only.
 */
export async function schedulesListCommand(
  config: WorkerConfig,
  options: { agent?: string; all: boolean },
  io: CommandIO,
): Promise<void> {
  const { agentId, items: schedules } = await readAgentList(config, options.agent, (controlPlane, agentId) =>
    controlPlane.schedules.listSchedules({ agentId, includeInactive: options.all }),
  );
  if (schedules.length === 0) {
    io.stdout.write(`Agent ${agentId} has no ${options.all ? '' : 'active '}schedules.\n`);
    return;
  }
  io.stdout.write(
    `${schedules.length} ${options.all ? '' : 'active '}schedule${schedules.length === 1 ? '' : 's'} of agent ${agentId}:\n`,
  );
  for (const schedule of schedules) {
    const when = schedule.kind === 'cron' ? `cron "${schedule.cron}"` : `once at ${schedule.runAt}`;
    io.stdout.write(
      `- ${schedule.name} (${schedule.id}) ${schedule.status}: ${when} in ${schedule.timeZone}\n`,
    );
    if (schedule.nextFireTimes.length > 0) {
      io.stdout.write(`  next: ${schedule.nextFireTimes.join(', ')}\n`);
    }
    io.stdout.write(`  prompt: ${JSON.stringify(schedule.prompt)}\n`);
  }
}
