import type { ControlPlane, TurnRequest } from '@switchyard/control-plane';
import type { AnyWorkerAgentTool } from '@switchyard/core';
import { agentToolMap } from '@switchyard/core/internal';
import { createTestToolContext } from '@switchyard/testkit';
import { createScheduleTools, type ScheduleService, type ScheduleSummary } from '@switchyard/tools-schedule';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestControlPlane, type TestControlPlane } from './__fixtures__/test-control-plane';

describe('schedule tools on the control plane (embedded PGlite)', () => {
  let store: TestControlPlane;
  let controlPlane: ControlPlane;

  beforeAll(async () => {
    store = await openTestControlPlane({
      schedules: { minimumIntervalSeconds: 600, maxSchedulesPerAgent: 5 },
      turnRequests: { pollingIntervalSeconds: 0.5 },
    });
    controlPlane = store.controlPlane;
  }, 180_000);

  afterAll(async () => {
    await store?.close();
  }, 180_000);

  function toolsFor(agentId: string) {
    // The control plane's service is a ScheduleService as the category declares it.
    const scheduleService: ScheduleService = controlPlane.schedules;
    const tools = agentToolMap(
      createScheduleTools({ scheduleService, agentId, defaultTimeZone: 'Europe/Berlin' }),
    );
    return (name: string, params: Record<string, unknown>) =>
      (tools.get(name) as AnyWorkerAgentTool).execute(params, createTestToolContext());
  }

  it('creates, lists and cancels through the tools, scoped to the calling agent', async () => {
    const ada = toolsFor('ada');
    const bob = toolsFor('bob');
    const created = await ada('create_schedule', {
      name: 'morning-digest',
      prompt: 'Summarise the overnight mail.',
      cron: '0 9 * * 1-5',
    });
    expect(created.isError).toBeUndefined();
    const schedule = created.details as ScheduleSummary;
    expect(schedule.timeZone).toBe('Europe/Berlin');
    expect(schedule.nextFireTimes).toHaveLength(3);
    for (const time of schedule.nextFireTimes) expect(time).toMatch(/T09:00:00\+0[12]:00$/);
    expect(created.content).toContain(
      `- morning-digest (id ${schedule.id}): cron "0 9 * * 1-5" in Europe/Berlin`,
    );

    expect((await bob('list_schedules', {})).content).toBe('You have no active schedules.');
    expect(await bob('cancel_schedule', { scheduleId: schedule.id })).toMatchObject({ isError: true });
    expect((await ada('list_schedules', {})).content).toMatch(/^1 active schedule:\n- morning-digest/);

    const cancelled = await ada('cancel_schedule', { scheduleId: schedule.id });
    expect(cancelled.isError).toBeUndefined();
    expect((cancelled.details as ScheduleSummary).status).toBe('cancelled');
    expect((await ada('list_schedules', {})).content).toBe('You have no active schedules.');
  });

  it("returns the control plane's refusals as error results", async () => {
    const carol = toolsFor('carol');
    expect(await carol('create_schedule', { name: 'x', prompt: 'p', cron: '*/5 * * * *' })).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Could not create the schedule: cron: .*minimum interval of 600 s/),
    });
    expect(
      await carol('create_schedule', {
        name: 'x',
        prompt: 'p',
        runAt: '2001-01-01T09:00',
        timeZone: 'Asia/Tokyo',
      }),
    ).toMatchObject({ isError: true, content: expect.stringMatching(/runAt: .* is in the past/) });
    expect(await carol('create_schedule', { name: 'x', prompt: 'p\u0000', cron: '0 9 * * *' })).toMatchObject(
      {
        isError: true,
        content: expect.stringMatching(/prompt: contains a NUL character/),
      },
    );
  });

  it("delivers a fired one-shot to the agent's turn-request consumer", async () => {
    const dave = toolsFor('dave');
    const runAt = new Date(Date.now() + 60_000);
    const created = await dave('create_schedule', {
      name: 'ping',
      prompt: 'Ping!',
      runAt: runAt.toISOString(),
    });
    const schedule = created.details as ScheduleSummary;
    const received = new Promise<TurnRequest>((resolve) => {
      void controlPlane.turnRequests.work(async (request) => resolve(request), { agentId: 'dave' });
    });
    expect((await controlPlane.scheduler.tick({ now: new Date(runAt.getTime() + 1_000) })).enqueued).toBe(1);
    expect(await received).toMatchObject({ agentId: 'dave', scheduleId: schedule.id, prompt: 'Ping!' });
  });
});
