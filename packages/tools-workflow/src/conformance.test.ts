import { describeToolCategory } from '@switchyard/testkit/conformance';
import { memoryJobService, memoryResultService, memoryWorkflowService } from './__fixtures__/memory-services';
import { createBackgroundJobTools, createTaskTurnTools, createWorkflowTools } from './index';

const resultSchema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

describeToolCategory(
  'workflow, background job and task-turn tools',
  () => [
    ...createWorkflowTools({ workflowService: memoryWorkflowService(), agentId: 'ada' }),
    ...createBackgroundJobTools({ backgroundJobService: memoryJobService(), agentId: 'ada' }),
    ...createTaskTurnTools({
      task: { kind: 'workflow-task', workflowId: 'w1', taskId: 'a', resultSchema },
      taskResultService: memoryResultService(),
    }),
  ],
  {
    samples: {
      workflow: [{ name: 'w', tasks: [{ id: 'a', prompt: 'do a', resultSchema }] }],
      submit_result: [{ summary: 'done' }],
    },
    nonStrict: {
      workflow:
        'each task carries an arbitrary JSON Schema (resultSchema), an open object strict mode cannot express',
      start_background_job: 'the optional resultSchema is an arbitrary JSON Schema, an open object',
    },
  },
);
