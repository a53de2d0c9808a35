import { type AnyWorkerAgentTool, collectToolSchemas } from '@switchyard/core';
import { agentToolMap } from '@switchyard/core/internal';
import { callTool } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { memoryScheduleService } from './__fixtures__/memory-schedule-service';
import { createScheduleTools, type ScheduleService, ScheduleToolsConfigError } from './index';

function toolsFor(service: ScheduleService, agentId: string) {
  const map = agentToolMap(
    createScheduleTools({ scheduleService: service, agentId, defaultTimeZone: 'Europe/Berlin' }),
  );
  // Through the validated path the loop takes: arguments are checked against the schema first; it
  // throws unless the tool answered (its own isError result included).
  const call = (name: string, params: Record<string, unknown>) => callTool([...map.values()], name, params);
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

  it('composed anew every turn, keeps one schema object per tool and zone, so core converts it once', () => {
    const { service } = memoryScheduleService();
    const compose = (agentId: string, defaultTimeZone: string) =>
      createScheduleTools({ scheduleService: service, agentId, defaultTimeZone });
    const berlin = compose('ada', 'Europe/Berlin');
    const again = compose('bob', 'Europe/Berlin');
    const tokyo = compose('ada', 'Asia/Tokyo');
    expect(again.map((tool, index) => tool.schema === berlin[index]?.schema)).toEqual([true, true, true]);
    expect(tokyo.map((tool, index) => tool.schema === berlin[index]?.schema)).toEqual([false, true, true]);
    // create_schedule's schema names the default zone, so each zone has its own.
    const timeZoneDescription = (tools: AnyWorkerAgentTool[]) => {
      const [create] = collectToolSchemas(tools).tools;
      const properties = create?.type === 'function' ? create.parameters.properties : undefined;
      return (properties as Record<string, { description: string }>).timeZone?.description;
    };
    expect(timeZoneDescription(berlin)).toMatch(/default Europe\/Berlin$/);
    expect(timeZoneDescription(tokyo)).toMatch(/default Asia\/Tokyo$/);
  });

  it('throws at creation naming the field of bad configuration', () => {
    const { service } = memoryScheduleService();
    expect(() => createScheduleTools({ scheduleService: {} as ScheduleService, agentId: 'ada' })).toThrow(
      /scheduleService: must implement ScheduleService \(missing createSchedule\)/,
    );
    expect(() => createScheduleTools({ scheduleService: service, agentId: '' })).toThrow(/agentId: /);
    expect(() =>
      createScheduleTools({ scheduleService: service, agentId: 'ada', defaultTimeZone: 'Moon/Base' }),
    ).toThrow(/defaultTimeZone: "Moon\/Base" is not an IANA time zone/);
  });
});

describe('create_schedule', () => {
  it('throws ScheduleToolsConfigError naming the option in field', () => {
    const { service } = memoryScheduleService();
    const cases: Array<[Parameters<typeof createScheduleTools>[0], string]> = [
      [
        { scheduleService: { ...service, listSchedules: undefined } as never, agentId: 'ada' },
        'scheduleService',
      ],
      [{ scheduleService: service, agentId: ' ' }, 'agentId'],
      [{ scheduleService: service, agentId: 'ada', defaultTimeZone: 'Moon/Base' }, 'defaultTimeZone'],
    ];
    for (const [context, field] of cases) {
      let thrown: unknown;
      try {
        createScheduleTools(context);
      } catch (error) {
        thrown = error;
      }
      expect(ScheduleToolsConfigError.isInstance(thrown), field).toBe(true);
      expect((thrown as ScheduleToolsConfigError).field).toBe(field);
      expect((thrown as Error).message).toMatch(/^Invalid schedule tools configuration: /);
    }
  });

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
        // The call's key: a create run again after its worker stopped creates one schedule.
        idempotencyKey: expect.stringMatching(/^tool:./),
      },
    ]);
    expect(result.content).toContain('- digest (id s1): cron "0 9 * * *" in Europe/Berlin');
    expect(result.content).toContain(
      'next: 2026-06-02T09:00:00+02:00, 2026-06-03T09:00:00+02:00, 2026-06-04T09:00:00+02:00',
    );
  });

  it.each([
    { case: 'both', timing: { cron: '0 9 * * *', runAt: '2030-01-01T00:00Z' }, refusal: /not both/ },
    { case: 'neither', timing: {}, refusal: /either `cron`/ },
  ])('refuses $case of cron and runAt without calling the service', async ({ timing, refusal }) => {
    const { service, calls } = memoryScheduleService();
    const { call } = toolsFor(service, 'ada');
    const result = await call('create_schedule', { name: 'x', prompt: 'p', ...timing });
    expect(result).toMatchObject({ isError: true, content: expect.stringMatching(refusal) });
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
