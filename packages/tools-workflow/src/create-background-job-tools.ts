import { type AnyWorkerAgentTool, defineWorkerTool, type JSONSchemaObject } from '@switchyard/core';
import { z } from 'zod';
import { formatJob } from './format-workflow';
import type { BackgroundJobService } from './services';
import { callService, checkAgentId, checkService } from './tool-helpers';

/** What `createBackgroundJobTools` needs from the turn. */
export interface BackgroundJobToolsContext {
  /** Where jobs live: `controlPlane.backgroundJobs` from `@switchyard/control-plane`. */
  backgroundJobService: BackgroundJobService;
  /** The calling agent: every tool acts on this agent's jobs only. */
  agentId: string;
}

// Module level: core converts a schema once per schema object, and these tools are composed on
// every turn. jobIdSchema is shared by check_background_job and cancel_background_job.
const jobIdSchema = z.object({ jobId: z.string().describe('The job id') });
const startJobSchema = z.object({
  prompt: z.string().describe('What the sub-agent should do, with everything it needs to know'),
  resultSchema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Optional JSON Schema of the result: an object with additionalProperties false and every property required',
    ),
});

/**
 * Creates the background job tools: `start_background_job`, `check_background_job` and
 * `cancel_background_job`, scoped to `agentId`. A turn that may not create jobs (a task or job turn)
 * simply does not include them.
 *
 * Contract: throws at creation naming the field when `backgroundJobService` lacks a method,
 * or `agentId` is not a non-empty string (`WorkflowToolsConfigError`). The service's
 * refusals and unknown ids become `isError` results.
 *
 * @example
 * const tools = [
 *   ...createBackgroundJobTools({ backgroundJobService: controlPlane.backgroundJobs, agentId: 'ada' }),
 * ];
 */
export function createBackgroundJobTools(context: BackgroundJobToolsContext): AnyWorkerAgentTool[] {
  const service = checkService(
    context?.backgroundJobService,
    'backgroundJobService',
    'BackgroundJobService',
    ['startBackgroundJob', 'checkBackgroundJob', 'cancelBackgroundJob'],
  );
  const agentId = checkAgentId(context.agentId);

  const notFound = (jobId: string) => ({
    content: `You have no background job with id ${jobId}.`,
    isError: true,
  });

  const start = defineWorkerTool({
    name: 'start_background_job',
    description:
      'Start a background job: a separate sub-agent turn works on `prompt` while you go on. Its result ' +
      'is its final answer, or, with `resultSchema`, a value matching that schema. Returns the job id; read the ' +
      'result later with check_background_job.',
    schema: startJobSchema,
    executionMode: 'sequential',
    // Started under the call's key: run again, it answers with the job it started.
    idempotent: true,
    describeActivity: () => 'Starting a background job',
    execute: ({ prompt, resultSchema }, { idempotencyKey }) =>
      callService(
        'start the background job',
        () =>
          service.startBackgroundJob({
            agentId,
            idempotencyKey: `tool:${idempotencyKey}`,
            prompt,
            ...(resultSchema === undefined ? {} : { resultSchema: resultSchema as JSONSchemaObject }),
          }),
        (job) => ({ content: `Started background job ${job.id} (${job.status}).`, details: job }),
      ),
  });

  const check = defineWorkerTool({
    name: 'check_background_job',
    description: 'Check one of your background jobs: its status, and its result once it has one.',
    schema: jobIdSchema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ jobId }) => `Checking background job ${jobId}`,
    execute: ({ jobId }) =>
      callService(
        'check the background job',
        () => service.checkBackgroundJob({ agentId, jobId }),
        (job) => (job === null ? notFound(jobId) : { content: formatJob(job), details: job }),
      ),
  });

  const cancel = defineWorkerTool({
    name: 'cancel_background_job',
    description: 'Cancel one of your queued or running background jobs.',
    schema: jobIdSchema,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: ({ jobId }) => `Cancelling background job ${jobId}`,
    execute: ({ jobId }) =>
      callService(
        'cancel the background job',
        () => service.cancelBackgroundJob({ agentId, jobId }),
        (job) => {
          if (job === null) return notFound(jobId);
          const note = job.status === 'cancelled' ? '' : `Already ended; nothing cancelled.\n`;
          return { content: `${note}${formatJob(job)}`, details: job };
        },
      ),
  });

  return [start, check, cancel];
}
