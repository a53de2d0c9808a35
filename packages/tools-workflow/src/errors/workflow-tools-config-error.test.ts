import { defineWorkerTool, SwitchyardConfigError } from '@switchyard/core';
import { thrownBy } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  memoryJobService,
  memoryResultService,
  memoryWorkflowService,
} from '../__fixtures__/memory-services';
import {
  createBackgroundJobTools,
  createTaskTurnTools,
  createWorkflowTools,
  WorkflowToolsConfigError,
} from '../index';

const writingBrainTool = defineWorkerTool({
  name: 'remember',
  description: 'Writes a page.',
  schema: z.object({}),
  executionMode: 'sequential',
  isReadOnly: false,
  isDestructive: false,
  describeActivity: () => 'Remembering',
  execute: async () => ({ content: 'ok' }),
});

describe('WorkflowToolsConfigError', () => {
  it('is what each creator throws for a bad option, naming the option in field', () => {
    const cases: Array<[() => unknown, string]> = [
      [() => createWorkflowTools({ workflowService: {} as never, agentId: 'ada' }), 'workflowService'],
      [() => createWorkflowTools({ workflowService: memoryWorkflowService(), agentId: ' ' }), 'agentId'],
      [
        () => createBackgroundJobTools({ backgroundJobService: {} as never, agentId: 'ada' }),
        'backgroundJobService',
      ],
      [() => createBackgroundJobTools({ backgroundJobService: memoryJobService(), agentId: '' }), 'agentId'],
      [
        () =>
          createTaskTurnTools({ task: { kind: 'other' } as never, taskResultService: memoryResultService() }),
        'task',
      ],
      [
        () =>
          createTaskTurnTools({
            task: { kind: 'workflow-task', workflowId: 'w1', taskId: 'a', resultSchema: {} },
            taskResultService: {} as never,
          }),
        'taskResultService',
      ],
      [
        () =>
          createTaskTurnTools({
            task: { kind: 'workflow-task', workflowId: 'w1', taskId: 'a', resultSchema: null },
            taskResultService: memoryResultService(),
          }),
        'task.resultSchema',
      ],
      [
        () =>
          createTaskTurnTools({
            task: { kind: 'background-job', jobId: 'j1', resultSchema: null },
            taskResultService: memoryResultService(),
            brainTools: [writingBrainTool],
          }),
        'brainTools',
      ],
    ];
    for (const [create, field] of cases) {
      const error = thrownBy(create, WorkflowToolsConfigError);
      expect(error.field).toBe(field);
      expect(error.message).toContain(`${field}: `);
      expect(error.name).toBe('WorkflowToolsConfigError');
    }
  });

  it('is recognised by its marker, not by instanceof', () => {
    const error = new WorkflowToolsConfigError({ field: 'agentId', message: 'must be a non-empty string' });
    expect(WorkflowToolsConfigError.isInstance(error)).toBe(true);
    expect(SwitchyardConfigError.isInstance(error)).toBe(true);
    expect(WorkflowToolsConfigError.isInstance({ ...error })).toBe(false);
    expect(WorkflowToolsConfigError.isInstance(new TypeError('agentId: must be a non-empty string'))).toBe(
      false,
    );
  });
});
