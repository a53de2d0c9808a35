import { type AnyWorkerAgentTool, agentToolMap, collectToolSchemas } from '@switchyard/core';
import { createTestToolContext } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import {
  createScheduleTools,
  type ScheduleCreateRequest,
  type ScheduleService,
  type ScheduleSummary,
} from './index';

/** An in-memory ScheduleService: the real one lives in the control plane, which a category may not import. */
function memoryScheduleService() {
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

function toolsFor(service: ScheduleService, agentId: string) {
  const map = agentToolMap(
    createScheduleTools({ scheduleService: service, agentId, defaultTimeZone: 'Europe/Berlin' }),
  );
  const call = (name: string, params: Record<string, unknown>) =>
    (map.get(name) as AnyWorkerAgentTool).execute(params, createTestToolContext());
  return { map, call };
}

describe('createScheduleTools', () => {
  it('returns create, list and cancel, each with a strict schema', () => {
    const { service } = memoryScheduleService();
    const tools = createScheduleTools({ scheduleService: service, agentId: 'ada' });
    expect(tools.map((tool) => tool.name)).toEqual(['create_schedule', 'list_schedules', 'cancel_schedule']);
    const manifest = collectToolSchemas(tools);
    expect(manifest.entries.map((entry) => [entry.key, entry.strict])).toEqual([
      ['create_schedule', true],
      ['list_schedules', true],
      ['cancel_schedule', true],
    ]);
    expect(tools.map((tool) => [tool.isReadOnly, tool.isDestructive, tool.executionMode])).toEqual([
      [false, false, 'sequential'],
      [true, false, 'parallel'],
      [false, true, 'sequential'],
    ]);
  });

  it('throws at creation naming the field of bad configuration', () => {
    const { service } = memoryScheduleService();
    expect(() => createScheduleTools({ scheduleService: {} as ScheduleService, agentId: 'ada' })).toThrow(
      /^scheduleService: must implement ScheduleService \(missing createSchedule\)/,
    );
    expect(() => createScheduleTools({ scheduleService: service, agentId: '' })).toThrow(/^agentId: /);
    expect(() =>
      createScheduleTools({ scheduleService: service, agentId: 'ada', defaultTimeZone: 'Moon/Base' }),
    ).toThrow(/^defaultTimeZone: "Moon\/Base" is not an IANA time zone/);
  });
});

describe('create_schedule', () => {
  it('creates for the calling agent in the default zone and shows the next three fire times', async () => {
    const { service, calls } = memoryScheduleService();
    const { call } = toolsFor(service, 'ada');
    const result = await call('create_schedule', {
      name: 'digest',
      prompt: 'Send the digest.',
      cron: '0 9 * * *',
    });
    expect(result.isError).toBeUndefined();
    expect(calls).toEqual([
      {
        agentId: 'ada',
        name: 'digest',
        prompt: 'Send the digest.',
        cron: '0 9 * * *',
        timeZone: 'Europe/Berlin',
      },
    ]);
    expect(result.content).toContain('- digest (id s1): cron "0 9 * * *" in Europe/Berlin');
    expect(result.content).toContain(
      'next: 2026-06-02T09:00:00+02:00, 2026-06-03T09:00:00+02:00, 2026-06-04T09:00:00+02:00',
    );
  });

  it('refuses both or neither of cron and runAt without calling the service', async () => {
    const { service, calls } = memoryScheduleService();
    const { call } = toolsFor(service, 'ada');
    const both = await call('create_schedule', {
      name: 'x',
      prompt: 'p',
      cron: '0 9 * * *',
      runAt: '2030-01-01T00:00Z',
    });
    expect(both).toMatchObject({ isError: true, content: expect.stringMatching(/not both/) });
    const neither = await call('create_schedule', { name: 'x', prompt: 'p' });
    expect(neither).toMatchObject({ isError: true, content: expect.stringMatching(/either `cron`/) });
    expect(calls).toEqual([]);
  });

  it("turns the service's refusal into an error result the model can act on", async () => {
    const { service } = memoryScheduleService();
    const { call } = toolsFor(service, 'ada');
    const result = await call('create_schedule', { name: 'x', prompt: 'p', cron: 'bad' });
    expect(result).toMatchObject({
      isError: true,
      content: 'Could not create the schedule: cron: "bad" must have 5 fields',
    });
  });
});

describe('list_schedules and cancel_schedule', () => {
  it("never shows or cancels another agent's schedule", async () => {
    const { service } = memoryScheduleService();
    const ada = toolsFor(service, 'ada');
    const bob = toolsFor(service, 'bob');
    await ada.call('create_schedule', { name: 'mine', prompt: 'p', runAt: '2030-01-01T09:00:00Z' });
    expect((await bob.call('list_schedules', {})).content).toBe('You have no active schedules.');
    const refused = await bob.call('cancel_schedule', { scheduleId: 's1' });
    expect(refused).toMatchObject({
      isError: true,
      content: expect.stringMatching(/no schedule with id s1/),
    });
    const listed = await ada.call('list_schedules', {});
    expect(listed.content).toMatch(/^1 active schedule:\n- mine \(id s1\): once at 2030-01-01T09:00:00Z/);
    const cancelled = await ada.call('cancel_schedule', { scheduleId: 's1' });
    expect(cancelled.content).toContain('cancelled: fires no more');
    expect((await ada.call('list_schedules', {})).content).toBe('You have no active schedules.');
  });
});
