import { type AgentToolResult, type AnyWorkerAgentTool, defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';
import { ScheduleToolsConfigError } from './errors/schedule-tools-config-error';
import { formatSchedule } from './format-schedule';
import type { ScheduleService, ScheduleSummary } from './schedule-service';

/** What `createScheduleTools` needs from the turn. */
export interface ScheduleToolsContext {
  /** Where schedules live: `controlPlane.schedules` from `@switchyard/control-plane`. */
  scheduleService: ScheduleService;
  /** The calling agent: every tool acts on this agent's schedules only. */
  agentId: string;
  /** The zone for a cron or local `runAt` given without one. Default `UTC`. */
  defaultTimeZone?: string;
}

function failure(action: string, error: unknown): AgentToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: `Could not ${action}: ${message}`, isError: true, details: { error: message } };
}

/**
 * `create_schedule`'s schema per accepted default time zone (its description names the zone); the
 * keys are the time zones already accepted. Building an `Intl.DateTimeFormat` costs about 1 ms, and
 * core converts a schema once per schema object: a worker composes these tools on every turn, so
 * each zone is checked, and its schema built and converted, once. A zone that is valid stays valid
 * for the process's life, and the schema depends on nothing else.
 */
const createScheduleSchemas = new Map<string, ReturnType<typeof buildCreateScheduleSchema>>();

function buildCreateScheduleSchema(defaultTimeZone: string) {
  return z.object({
    name: z.string().describe('A short name, unique among your active schedules, e.g. "morning-digest"'),
    prompt: z.string().describe('What to tell yourself when it fires'),
    cron: z.string().optional().describe('5-field cron expression, e.g. "0 9 * * 1-5"; omit for a one-shot'),
    timeZone: z
      .string()
      .optional()
      .describe(
        `IANA time zone for the cron or a runAt without offset, e.g. "Europe/Berlin"; default ${defaultTimeZone}`,
      ),
    runAt: z.string().optional().describe('One-shot ISO 8601 time; omit for a cron schedule'),
  });
}

/**
 * The schema of `create_schedule` for `defaultTimeZone`, built once per zone.
 *
 * Contract: throws `ScheduleToolsConfigError` (field `defaultTimeZone`) for a zone that is not IANA.
 */
function createScheduleSchema(defaultTimeZone: string) {
  let schema = createScheduleSchemas.get(defaultTimeZone);
  if (schema === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: defaultTimeZone });
    } catch {
      throw new ScheduleToolsConfigError({
        field: 'defaultTimeZone',
        message: `${JSON.stringify(defaultTimeZone)} is not an IANA time zone`,
      });
    }
    schema = buildCreateScheduleSchema(defaultTimeZone);
    createScheduleSchemas.set(defaultTimeZone, schema);
  }
  return schema;
}

const listSchedulesSchema = z.object({});
const cancelScheduleSchema = z.object({ scheduleId: z.string().describe('The schedule id') });

/**
 * Creates the schedule tools: `create_schedule`, `list_schedules` and `cancel_schedule`, in that
 * order, all scoped to `agentId`.
 *
 * Contract: throws at creation naming the field when `scheduleService` lacks a method, `agentId`
 * is not a non-empty string, or `defaultTimeZone` is not an IANA zone. Invalid input (a bad cron or zone, a past time, a limit reached, an
 * unknown id) becomes an `isError` result saying what to change.
 *
 * @example
 * const tools = [
 *   ...createScheduleTools({ scheduleService: controlPlane.schedules, agentId: 'ada' }),
 * ];
 */
export function createScheduleTools(context: ScheduleToolsContext): AnyWorkerAgentTool[] {
  const service = context?.scheduleService;
  for (const method of ['createSchedule', 'listSchedules', 'cancelSchedule'] as const) {
    if (typeof service?.[method] !== 'function') {
      throw new ScheduleToolsConfigError({
        field: 'scheduleService',
        message: `must implement ScheduleService (missing ${method})`,
      });
    }
  }
  const { agentId } = context;
  if (typeof agentId !== 'string' || agentId.trim() === '') {
    throw new ScheduleToolsConfigError({
      field: 'agentId',
      message: `must be a non-empty string, got ${JSON.stringify(agentId)}`,
    });
  }
  const defaultTimeZone = context.defaultTimeZone ?? 'UTC';
  const createScheduleParameters = createScheduleSchema(defaultTimeZone);

  const createSchedule = defineWorkerTool({
    name: 'create_schedule',
    description:
      'Schedule a future turn of yours: at each fire time you receive `prompt` as a new message. ' +
      'Give either `cron` (5 fields: minute hour day-of-month month day-of-week, read in `timeZone`) for a ' +
      'recurring schedule, or `runAt` (ISO 8601, e.g. 2026-05-01T09:30:00+02:00) for a one-shot. ' +
      'Returns the schedule id and its next three fire times. A minimum interval and a per-agent ' +
      'schedule limit apply.',
    schema: createScheduleParameters,
    executionMode: 'sequential',
    // Created under the call's key: run again (its worker stopped before its output was recorded),
    // it answers with the schedule it created.
    idempotent: true,
    describeActivity: ({ name }) => `Scheduling ${name}`,
    describeCompletedActivity: ({ name }, result) =>
      result.isError ? `Could not schedule ${name}` : `Scheduled ${name}`,
    execute: async ({ name, prompt, cron, timeZone, runAt }, { idempotencyKey }) => {
      const hasCron = cron !== undefined && cron.trim() !== '';
      const hasRunAt = runAt !== undefined && runAt.trim() !== '';
      if (hasCron === hasRunAt) {
        return {
          content: hasCron
            ? 'Give either `cron` or `runAt`, not both: a cron schedule recurs, `runAt` fires once.'
            : 'Give either `cron` (recurring, with `timeZone`) or `runAt` (one-shot ISO 8601 time).',
          isError: true,
        };
      }
      let created: ScheduleSummary;
      try {
        created = await service.createSchedule({
          agentId,
          name,
          prompt,
          ...(hasCron ? { cron } : { runAt }),
          timeZone: timeZone ?? defaultTimeZone,
          idempotencyKey: `tool:${idempotencyKey}`,
        });
      } catch (error) {
        return failure('create the schedule', error);
      }
      return { content: `Created schedule:\n${formatSchedule(created)}`, details: created };
    },
  });

  const listSchedules = defineWorkerTool({
    name: 'list_schedules',
    description: 'List your active schedules with their ids, timing, next fire times and prompts.',
    schema: listSchedulesSchema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: () => 'Listing schedules',
    describeCompletedActivity: (_params, result) =>
      Array.isArray(result.details) ? `Listed ${result.details.length} schedules` : 'Listed schedules',
    execute: async () => {
      let schedules: ScheduleSummary[];
      try {
        schedules = await service.listSchedules({ agentId });
      } catch (error) {
        return failure('list the schedules', error);
      }
      if (schedules.length === 0) return { content: 'You have no active schedules.', details: [] };
      return {
        content: `${schedules.length} active schedule${schedules.length === 1 ? '' : 's'}:\n${schedules.map(formatSchedule).join('\n')}`,
        details: schedules,
      };
    },
  });

  const cancelSchedule = defineWorkerTool({
    name: 'cancel_schedule',
    description:
      'Cancel one of your schedules by id (from create_schedule or list_schedules); it fires no more.',
    schema: cancelScheduleSchema,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: ({ scheduleId }) => `Cancelling schedule ${scheduleId}`,
    describeCompletedActivity: ({ scheduleId }, result) =>
      result.isError ? `Could not cancel schedule ${scheduleId}` : `Cancelled schedule ${scheduleId}`,
    execute: async ({ scheduleId }) => {
      let cancelled: ScheduleSummary | null;
      try {
        cancelled = await service.cancelSchedule({ agentId, scheduleId });
      } catch (error) {
        return failure('cancel the schedule', error);
      }
      if (cancelled === null) {
        return {
          content: `You have no schedule with id ${scheduleId}. Call list_schedules to see your schedules' ids.`,
          isError: true,
        };
      }
      return { content: `Cancelled schedule:\n${formatSchedule(cancelled)}`, details: cancelled };
    },
  });

  return [createSchedule, listSchedules, cancelSchedule];
}
