import { type AnyWorkerAgentTool, collectToolSchemas, defineWorkerTool } from '@switchyard/core';
import { callTool as call, runToolCall } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { memoryJobService, memoryResultService, memoryWorkflowService } from './__fixtures__/memory-services';
import {
  createBackgroundJobTools,
  createTaskTurnTools,
  createWorkflowTools,
  type WorkflowDetails,
} from './index';

const resultSchema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

describe('createWorkflowTools', () => {
  it('returns workflow, show_workflow, list_workflows and cancel_workflow', () => {
    const tools = createWorkflowTools({ workflowService: memoryWorkflowService(), agentId: 'ada' });
    expect(tools.map((tool) => tool.name)).toEqual([
      'workflow',
      'show_workflow',
      'list_workflows',
      'cancel_workflow',
    ]);
  });

  it('composed anew every turn, keeps every schema object, so core converts each once', () => {
    const schemasOf = (tools: AnyWorkerAgentTool[]) => tools.map((tool) => tool.schema);
    const compose = (agentId: string) => [
      ...createWorkflowTools({ workflowService: memoryWorkflowService(), agentId }),
      ...createBackgroundJobTools({ backgroundJobService: memoryJobService(), agentId }),
    ];
    const first = schemasOf(compose('ada'));
    const again = schemasOf(compose('bob'));
    expect(first).toHaveLength(7);
    expect(again.map((schema, index) => schema !== undefined && schema === first[index])).toEqual(
      first.map(() => true),
    );
  });

  it('throws at creation naming the field', () => {
    expect(() => createWorkflowTools({ workflowService: {} as never, agentId: 'ada' })).toThrow(
      /workflowService: must implement WorkflowService \(missing startWorkflow\)/,
    );
    expect(() => createWorkflowTools({ workflowService: memoryWorkflowService(), agentId: ' ' })).toThrow(
      /agentId:/,
    );
  });

  it("starts under the call's idempotency key, so a call run again after a crash starts nothing new", async () => {
    const service = memoryWorkflowService();
    const [start] = createWorkflowTools({ workflowService: service, agentId: 'ada' });
    if (start === undefined) throw new Error('no workflow tool');
    expect(start.idempotent).toBe(true);
    await runToolCall(start, {
      name: 'once',
      tasks: [{ id: 'a', prompt: 'p', resultSchema }],
    });
    expect(service.calls).toMatchObject([
      { agentId: 'ada', idempotencyKey: expect.stringMatching(/^tool:once:/) },
    ]);
    const jobs = createBackgroundJobTools({ backgroundJobService: memoryJobService(), agentId: 'ada' });
    expect(jobs[0]?.idempotent).toBe(true);
    const submit = createTaskTurnTools({
      task: { kind: 'workflow-task', workflowId: 'w1', taskId: 'a', resultSchema },
      taskResultService: memoryResultService(),
    }).find((tool) => tool.name === 'submit_result');
    expect(submit?.idempotent).toBe(true);
  });

  it('starts, shows, lists and cancels, scoped to the calling agent', async () => {
    const service = memoryWorkflowService();
    const ada = createWorkflowTools({ workflowService: service, agentId: 'ada' });
    const bob = createWorkflowTools({ workflowService: service, agentId: 'bob' });
    const started = await call(ada, 'workflow', {
      name: 'research',
      tasks: [
        { id: 'a', prompt: 'look', resultSchema },
        { id: 'b', prompt: 'use {{tasks.a.result}}', resultSchema, dependsOn: ['a'] },
      ],
    });
    expect(started.isError).toBeUndefined();
    expect(started.content).toBe(
      'Started:\nWorkflow research (id w1): running\n- a: queued\n- b: pending (waits for a)',
    );
    expect(service.calls[0]).toMatchObject({ agentId: 'ada', spec: { name: 'research' } });
    expect((await call(bob, 'show_workflow', { workflowId: 'w1' })).isError).toBe(true);
    expect((await call(bob, 'list_workflows', {})).content).toBe('You have no workflows.');
    expect((await call(ada, 'list_workflows', {})).content).toBe('1 workflow:\n- research (id w1): running');
    expect(await call(bob, 'cancel_workflow', { workflowId: 'w1' })).toMatchObject({ isError: true });
    const cancelled = await call(ada, 'cancel_workflow', { workflowId: 'w1' });
    expect(cancelled.content).toMatch(
      /^Cancelled:\nWorkflow research \(id w1\): cancelled\n- a: cancelled: cancelled with the workflow/,
    );
    expect((cancelled.details as WorkflowDetails).status).toBe('cancelled');
  });

  it("returns the service's refusal of a spec as an error result naming the task and path", async () => {
    const tools = createWorkflowTools({ workflowService: memoryWorkflowService(), agentId: 'ada' });
    const refused = await call(tools, 'workflow', {
      name: 'bad',
      tasks: [{ id: 'x', prompt: 'p', resultSchema: { type: 'array' } }],
    });
    expect(refused).toMatchObject({
      isError: true,
      content:
        'Could not start the workflow: tasks[0].resultSchema: task "x": resultSchema at /: the root must be an object schema',
    });
  });
});

describe('createBackgroundJobTools', () => {
  it('starts, checks and cancels jobs of the calling agent only', async () => {
    const service = memoryJobService();
    const ada = createBackgroundJobTools({ backgroundJobService: service, agentId: 'ada' });
    const bob = createBackgroundJobTools({ backgroundJobService: service, agentId: 'bob' });
    expect(ada.map((tool) => tool.name)).toEqual([
      'start_background_job',
      'check_background_job',
      'cancel_background_job',
    ]);
    expect((await call(ada, 'start_background_job', { prompt: 'dig' })).content).toBe(
      'Started background job j1 (queued).',
    );
    expect(await call(bob, 'check_background_job', { jobId: 'j1' })).toMatchObject({ isError: true });
    expect((await call(ada, 'check_background_job', { jobId: 'j1' })).content).toBe(
      'Background job j1: queued',
    );
    expect((await call(ada, 'cancel_background_job', { jobId: 'j1' })).content).toBe(
      'Background job j1: cancelled',
    );
  });
});

describe('createTaskTurnTools', () => {
  const task = { kind: 'workflow-task' as const, workflowId: 'w1', taskId: 'a', resultSchema };

  const stand = (name: string, access: { isReadOnly?: boolean } = {}) =>
    defineWorkerTool({
      name,
      description: `Stands in for ${name}.`,
      schema: z.object({ query: z.string() }),
      executionMode: 'parallel',
      ...access,
      describeActivity: ({ query }) => `Running ${name} on ${query}`,
      execute: async () => ({ content: name }),
    });
  const names = (tools: AnyWorkerAgentTool[]) => tools.map((tool) => tool.name);

  it('has a fixed list: the web tools and read-only Brain tools given, then submit_result', () => {
    expect(names(createTaskTurnTools({ task, taskResultService: memoryResultService() }))).toEqual([
      'submit_result',
    ]);
    expect(
      names(
        createTaskTurnTools({
          task,
          taskResultService: memoryResultService(),
          webTools: [stand('web_fetch', { isReadOnly: true })],
          brainTools: [stand('recall', { isReadOnly: true }), stand('get_page', { isReadOnly: true })],
        }),
      ),
    ).toEqual(['web_fetch', 'recall', 'get_page', 'submit_result']);
  });

  it('refuses a Brain tool that writes, and a name given twice', () => {
    expect(() =>
      createTaskTurnTools({
        task,
        taskResultService: memoryResultService(),
        brainTools: [stand('remember')],
      }),
    ).toThrow(/brainTools: 'remember' is not read-only; a task turn gets only read-only Brain tools$/);
    expect(() =>
      createTaskTurnTools({
        task,
        taskResultService: memoryResultService(),
        webTools: [stand('recall', { isReadOnly: true })],
        brainTools: [stand('recall', { isReadOnly: true })],
      }),
    ).toThrow(/brainTools: 'recall' cannot be part of a task turn/);
    expect(() =>
      createTaskTurnTools({
        task,
        taskResultService: memoryResultService(),
        webTools: [stand('submit_result', { isReadOnly: true })],
      }),
    ).toThrow(/webTools: 'submit_result' cannot be part of a task turn/);
  });

  it('refuses creation tools smuggled in through webTools', () => {
    const [workflow] = createWorkflowTools({ workflowService: memoryWorkflowService(), agentId: 'ada' });
    expect(() =>
      createTaskTurnTools({
        task,
        taskResultService: memoryResultService(),
        webTools: [workflow as AnyWorkerAgentTool],
      }),
    ).toThrow(/webTools: 'workflow' cannot be part of a task turn/);
  });

  it("sends the stored result schema unchanged as submit_result's parameters, in strict mode", () => {
    const tools = createTaskTurnTools({ task, taskResultService: memoryResultService() });
    const { tools: sent, entries } = collectToolSchemas(tools);
    expect(sent[0]).toMatchObject({ type: 'function', name: 'submit_result', strict: true });
    expect((sent[0] as { parameters: unknown }).parameters).toBe(resultSchema);
    expect(entries[0]?.strict).toBe(true);
  });

  it('lists each problem of a rejected submission and ends the turn once one is stored', async () => {
    const service = memoryResultService();
    const tools = createTaskTurnTools({ task, taskResultService: service });
    const rejected = await call(tools, 'submit_result', { summary: 'ab' });
    expect(rejected).toMatchObject({
      isError: true,
      content:
        'Result rejected, nothing stored. Fix each problem and call submit_result again:\n- /summary: too short',
    });
    expect(rejected.endsTurn).toBeUndefined();
    const stored = await call(tools, 'submit_result', { summary: 'all good' });
    expect(stored).toMatchObject({ endsTurn: true, content: 'Result stored. Your task is done.' });
    const again = await call(tools, 'submit_result', { summary: 'once more' });
    expect(again).toMatchObject({
      endsTurn: true,
      content: expect.stringMatching(/already stored; nothing new/),
    });
    expect(service.stored).toEqual([
      { target: { kind: 'workflow-task', workflowId: 'w1', taskId: 'a' }, result: { summary: 'all good' } },
    ]);
  });

  it('refuses arguments outside the schema before they reach the service', async () => {
    const service = memoryResultService();
    const tool = createTaskTurnTools({ task, taskResultService: service })[0] as AnyWorkerAgentTool;
    const outcome = await runToolCall(tool, { summary: 5, extra: 1 });
    expect(outcome.end.outcome).toBe('invalid-arguments');
    expect(service.stored).toEqual([]);
  });

  it('has no submit_result for a background job without a result schema, and throws for a non-strict schema', () => {
    expect(
      createTaskTurnTools({
        task: { kind: 'background-job', jobId: 'j1', resultSchema: null },
        taskResultService: memoryResultService(),
      }),
    ).toEqual([]);
    expect(() =>
      createTaskTurnTools({
        task: { ...task, resultSchema: { type: 'object', properties: { a: { type: 'string' } } } },
        taskResultService: memoryResultService(),
      }),
    ).toThrow(/strict/);
  });
});
