import type { ControlPlane } from '@switchyard/control-plane';
import { definedFields } from '../../defined-fields';
import type { ApiContext } from '../api-context';
import { createResourceApp, type RouteText } from '../route-builders';
import { refuseOtherMethods, registerList } from '../route-registrars';
import { ScheduleListSchema, schedulesQuerySchema } from './schedule-schemas';

/** The schedules of `agent` (every one with `all`), each with its newest runs (at most 10). */
async function schedulesOf(schedules: ControlPlane['schedules'], agent: string, all: boolean) {
  const list = await schedules.listSchedules({ agentId: agent, includeInactive: all });
  const runs = await schedules.listRuns({
    agentId: agent,
    scheduleIds: list.map((schedule) => schedule.id),
    limit: 10,
  });
  return list.map((schedule) => ({
    id: schedule.id,
    agent,
    name: schedule.name,
    status: schedule.status,
    kind: schedule.kind,
    ...(schedule.cron === null ? {} : { cron: schedule.cron }),
    ...(schedule.runAt === null ? {} : { runAt: schedule.runAt }),
    timeZone: schedule.timeZone,
    nextFireTimes: schedule.nextFireTimes,
    prompt: schedule.prompt,
    createdAt: schedule.createdAt,
    runs: runs
      .filter((run) => run.scheduleId === schedule.id)
      .map((run) => ({
        firedAt: run.firedAt,
        slot: run.slot,
        status: run.status,
        ...definedFields(run, ['turnId', 'error']),
      })),
  }));
}

/** `GET /v1/schedules` as the API document describes it. */
const LIST_SCHEDULES: RouteText = {
  operationId: 'listSchedules',
  path: '/v1/schedules',
  summary: 'The schedules of the agents served, with their next fire times and recent runs',
  description:
    'What `switchyard schedules list` reads: active schedules, or every one with `all=true`, newest first per agent. `runs` come from the control plane’s run ledger (one row per schedule slot that fired, however often it was delivered), newest first, at most 10, each with the newest turn that ran it.',
};

/** The schedules' sub-app: `GET /v1/schedules`, the schedules of the agents served with their recent runs. */
export function createSchedulesApp(context: ApiContext) {
  const { schedules } = context.options.controlPlane;
  const app = createResourceApp();
  registerList(
    app,
    LIST_SCHEDULES,
    schedulesQuerySchema(context.fields),
    { description: 'Schedules', schema: ScheduleListSchema },
    async (query) => {
      const lists = await Promise.all(
        context.served(query.agent).map((agent) => schedulesOf(schedules, agent, query.all === 'true')),
      );
      return { items: lists.flat() };
    },
  );
  refuseOtherMethods(app, [[LIST_SCHEDULES.path, ['GET']]]);
  return app;
}
