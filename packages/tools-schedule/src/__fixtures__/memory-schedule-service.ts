import type { ScheduleCreateRequest, ScheduleService, ScheduleSummary } from '../schedule-service';

/** An in-memory ScheduleService: the real one lives in the control plane, which a category may not import. */
export function memoryScheduleService() {
  const schedules: Array<ScheduleSummary & { agentId: string }> = [];
  const calls: ScheduleCreateRequest[] = [];
  const service: ScheduleService = {
    async createSchedule(request) {
      calls.push(request);
      if (request.cron === 'bad') throw new Error('cron: "bad" must have 5 fields');
      const schedule = {
        id: `s${schedules.length + 1}`,
        agentId: request.agentId,
        name: request.name,
        prompt: request.prompt,
        kind: request.cron ? ('cron' as const) : ('once' as const),
        cron: request.cron ?? null,
        timeZone: request.timeZone ?? 'UTC',
        runAt: request.runAt ?? null,
        status: 'active' as const,
        nextFireTimes: request.cron
          ? ['2026-06-02T09:00:00+02:00', '2026-06-03T09:00:00+02:00', '2026-06-04T09:00:00+02:00']
          : [request.runAt ?? ''],
      };
      schedules.push(schedule);
      return schedule;
    },
    async listSchedules({ agentId }) {
      return schedules.filter((schedule) => schedule.agentId === agentId && schedule.status === 'active');
    },
    async cancelSchedule({ agentId, scheduleId }) {
      const schedule = schedules.find((entry) => entry.id === scheduleId && entry.agentId === agentId);
      if (schedule === undefined) return null;
      schedule.status = 'cancelled';
      schedule.nextFireTimes = [];
      return schedule;
    },
  };
  return { service, calls };
}
