import { testBackends } from '@switchyard/test-databases';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { inputError } from '../__fixtures__/input-errors';
import { until } from '../__fixtures__/until';
import { startWorkflow, summarySchema, summaryTask } from '../__fixtures__/work-fixtures';
import { checkResultSchema, validateResult, type WorkTurn } from '../index';

// Nothing invalid is stored through any public API: non-finite numbers (a model's `1e999` arrives
// as Infinity), values that change in their JSON round trip, results for tasks that are not running
// (pending, queued, cancelled, another attempt's), and duplicates.

const priceSchema = {
  type: 'object',
  properties: { summary: { type: 'string' }, price: { type: 'number' } },
  required: ['summary', 'price'],
  additionalProperties: false,
};
const NOT_FINITE =
  'is not a finite number, and JSON has no Infinity or NaN (a literal such as 1e999 overflows to Infinity): use a finite number';

describe('finite JSON, checked as stored', () => {
  it('validates the value as it will be stored, refusing non-finite numbers with their pointer', () => {
    const parsed = JSON.parse('{"summary": "s", "price": 1e999}') as unknown;
    expect(validateResult(priceSchema, parsed)).toEqual([`/price: Infinity ${NOT_FINITE}`]);
    expect(validateResult(priceSchema, { summary: 's', price: Number.NaN })).toEqual([
      `/price: NaN ${NOT_FINITE}`,
    ]);
    expect(
      validateResult(
        {
          type: 'object',
          properties: { list: { type: 'array', items: { type: 'number' } } },
          required: ['list'],
          additionalProperties: false,
        },
        { list: [1, -Infinity] },
      ),
    ).toEqual([`/list/1: -Infinity ${NOT_FINITE}`]);
    // What JSON.stringify would change is validated as changed: undefined drops out, toJSON applies.
    expect(validateResult(summarySchema, { summary: undefined })).toEqual([
      '/summary: missing: this property is required',
    ]);
    expect(validateResult(summarySchema, { summary: { toJSON: () => 'from toJSON' } })).toEqual([]);
    expect(validateResult(priceSchema, { summary: 's', price: 1e308 })).toEqual([]);
  });

  it('refuses a result schema with a non-finite enum value instead of storing it as null', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"level":{"type":"number","enum":[1,1e999]}},"required":["level"],"additionalProperties":false}',
    ) as unknown;
    expect(checkResultSchema(schema)).toEqual({
      ok: false,
      path: '/properties/level/enum/1',
      message: `Infinity ${NOT_FINITE}`,
    });
  });
});

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: nothing invalid is stored`, () => {
    const suite = useControlPlane(backend, {
      workTurns: { pollingIntervalSeconds: 0.5, retryLimit: 0, cancelCheckIntervalMs: 50 },
    });
    const running = new Map<string, { turn: WorkTurn; attempt: number }>();
    // Turns of agent 'ada' hold until the test opens this gate; agent 'idle' has no consumer, so its
    // tasks and jobs stay queued.
    let openGate: () => void = () => {};
    let gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });

    beforeAll(async () => {
      await suite.controlPlane.workTurns.work(
        async (turn, { attempt }) => {
          running.set(turn.kind === 'workflow-task' ? `${turn.workflowId}/${turn.taskId}` : turn.jobId, {
            turn,
            attempt,
          });
          await gate;
          return undefined;
        },
        { agentId: 'ada', concurrency: 5 },
      );
    });

    afterAll(async () => {
      openGate();
    });

    /** Why the low-level work store refuses to store `result` as task `taskId`'s result. */
    const storeRefusal = (workflowId: string, taskId: string, result: unknown) =>
      inputError(suite.controlPlane.work.storeTaskResult({ workflowId, taskId, result }));
    const storedResults = async (workflowId: string) =>
      await suite.rows<{ task_id: string; result: unknown }>(
        'SELECT task_id, result FROM switchyard.task_results WHERE workflow_id = $1 ORDER BY task_id',
        [workflowId],
      );

    /**
     * Waits for task `taskId` of `workflowId` to run, then gives a `submitResult` for it: `result` in
     * the name of `attempt` (by default, the attempt running).
     */
    const whenTaskRuns = async (workflowId: string, taskId: string) => {
      const found = await until(
        'the task to run',
        async () => running.get(`${workflowId}/${taskId}`),
        Boolean,
      );
      const target = { kind: 'workflow-task' as const, workflowId, taskId };
      return (result: unknown, attempt = found?.attempt) =>
        suite.controlPlane.workTurns.submitResult({ target, attempt, result });
    };

    it('refuses non-finite numbers through every API that stores a value', async () => {
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'prices', [
        { id: 'quote', prompt: 'p', resultSchema: priceSchema },
      ]);
      const submit = await whenTaskRuns(workflow.id, 'quote');
      const overflowing = JSON.parse('{"summary": "s", "price": 1e999}') as unknown;
      expect(await submit(overflowing)).toEqual({
        status: 'rejected',
        problems: [`/price: Infinity ${NOT_FINITE}`],
      });
      expect((await storeRefusal(workflow.id, 'quote', overflowing)).message).toBe(
        `result: /price: Infinity ${NOT_FINITE}`,
      );
      expect(await storedResults(workflow.id)).toEqual([]);
      // The same value, finite, is stored; a second submission stores nothing more.
      expect(await submit({ summary: 's', price: 1e308 })).toEqual({ status: 'stored' });
      expect(await submit({ summary: 'again', price: 2 })).toEqual({ status: 'already-stored' });
      expect(
        await suite.controlPlane.work.storeTaskResult({
          workflowId: workflow.id,
          taskId: 'quote',
          result: { summary: 'x', price: 3 },
        }),
      ).toEqual({
        stored: false,
      });
      expect(await storedResults(workflow.id)).toEqual([
        { task_id: 'quote', result: { summary: 's', price: 1e308 } },
      ]);

      const job = await suite.controlPlane.backgroundJobs.startBackgroundJob({
        agentId: 'ada',
        prompt: 'p',
        resultSchema: priceSchema,
      });
      const jobRun = await until('the job to run', async () => running.get(job.id), Boolean);
      expect(
        await suite.controlPlane.workTurns.submitResult({
          target: { kind: 'background-job', jobId: job.id },
          attempt: jobRun?.attempt,
          result: { summary: 's', price: Number.NEGATIVE_INFINITY },
        }),
      ).toEqual({ status: 'rejected', problems: [`/price: -Infinity ${NOT_FINITE}`] });
      expect(
        (await suite.controlPlane.backgroundJobs.checkBackgroundJob({ agentId: 'ada', jobId: job.id }))
          ?.result,
      ).toBeNull();

      const badEnum = JSON.parse(
        '{"type":"object","properties":{"level":{"type":"number","enum":[1e999]}},"required":["level"],"additionalProperties":false}',
      ) as Record<string, unknown>;
      expect(
        (
          await inputError(
            suite.controlPlane.backgroundJobs.startBackgroundJob({
              agentId: 'ada',
              prompt: 'p',
              resultSchema: badEnum,
            }),
          )
        ).field,
      ).toBe('resultSchema');
      expect(
        (
          await inputError(
            suite.controlPlane.workflows.startWorkflow({
              agentId: 'ada',
              spec: { name: 'bad-enum', tasks: [{ id: 't', prompt: 'p', resultSchema: badEnum }] },
            }),
          )
        ).message,
      ).toBe(
        `tasks[0].resultSchema: task "t": resultSchema at /properties/level/enum/0: Infinity ${NOT_FINITE}`,
      );
      for (const [field, run] of [
        [
          'payload',
          () =>
            suite.controlPlane.work.createBackgroundJob({
              agentId: 'ada',
              kind: 'k',
              payload: { n: Number.NaN },
              idempotencyKey: 'nan',
            }),
        ],
        [
          'tasks[0].input',
          () =>
            suite.controlPlane.work.createWorkflow({
              agentId: 'ada',
              name: 'n',
              definition: {},
              tasks: [{ taskId: 'a', input: { n: Number.POSITIVE_INFINITY } }],
              idempotencyKey: 'inf',
            }),
        ],
      ] as const) {
        expect((await inputError(run())).message).toMatch(
          new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: /n: `),
        );
      }
      const rows = await suite.rows("SELECT 1 FROM switchyard.workflows WHERE name IN ('bad-enum', 'n')");
      expect(rows).toEqual([]);
    });

    it('stores a result only for a running task: not pending, queued, cancelled or of another attempt', async () => {
      // Agent 'idle' has no consumer: its first task stays queued, the second pending on it.
      const idle = await startWorkflow(suite.controlPlane, 'idle', 'idle', [
        summaryTask('first'),
        summaryTask('second', { dependsOn: ['first'] }),
      ]);
      const submit = (taskId: string, attempt?: number) =>
        suite.controlPlane.workTurns.submitResult({
          target: { kind: 'workflow-task', workflowId: idle.id, taskId },
          result: { summary: 'bypass' },
          ...(attempt === undefined ? {} : { attempt }),
        });
      expect(await submit('first')).toEqual({
        status: 'closed',
        reason: 'the task is queued: only the turn running it submits its result',
      });
      expect(await submit('first', 1)).toMatchObject({ status: 'closed' });
      expect(await submit('second')).toEqual({
        status: 'closed',
        reason: 'the task is pending (waiting for its dependencies): it has no turn yet',
      });
      expect((await storeRefusal(idle.id, 'second', { summary: 'x' })).message).toBe(
        'taskId: task second takes no result: the task is pending (waiting for its dependencies): it has no turn yet',
      );
      expect(await storedResults(idle.id)).toEqual([]);
      const shown = await suite.controlPlane.workflows.showWorkflow({ agentId: 'idle', workflowId: idle.id });
      expect(shown?.tasks.map((task) => task.status)).toEqual(['queued', 'pending']);

      // A running task takes a result from its current attempt only.
      const busy = await startWorkflow(suite.controlPlane, 'ada', 'busy', [summaryTask('work')]);
      const submitWork = await whenTaskRuns(busy.id, 'work');
      expect(await submitWork({ summary: 'x' }, 2)).toMatchObject({
        status: 'closed',
        reason: expect.stringMatching(/^attempt 2 of this task was handed to another worker/),
      });
      expect((await inputError(submitWork({}, 0))).field).toBe('attempt');
      expect(await submitWork({ summary: 'ok' })).toEqual({ status: 'stored' });
      expect(await storedResults(busy.id)).toEqual([{ task_id: 'work', result: { summary: 'ok' } }]);
    });

    it('keeps a cancelled workflow cancelled, whichever API is called', async () => {
      const workflow = await suite.controlPlane.workflows.startWorkflow({
        agentId: 'ada',
        idempotencyKey: 'cancel-me',
        spec: {
          name: 'cancel-me',
          tasks: [summaryTask('running'), summaryTask('later', { dependsOn: ['running'] })],
        },
      });
      const submit = await whenTaskRuns(workflow.id, 'running');
      await suite.controlPlane.workflows.cancelWorkflow({ agentId: 'ada', workflowId: workflow.id });
      expect(await submit({ summary: 'x' })).toEqual({
        status: 'closed',
        reason: 'the workflow was cancelled',
      });
      expect((await storeRefusal(workflow.id, 'later', { summary: 'x' })).field).toBe('taskId');
      // Starting it again with the same key returns it as it is.
      const again = await suite.controlPlane.workflows.startWorkflow({
        agentId: 'ada',
        idempotencyKey: 'cancel-me',
        spec: { name: 'cancel-me', tasks: [summaryTask('running')] },
      });
      expect(again.status).toBe('cancelled');
      // The held turn ends without a result: that fails nothing in a cancelled workflow.
      openGate();
      gate = new Promise((resolve) => {
        openGate = resolve;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const shown = await suite.controlPlane.workflows.showWorkflow({
        agentId: 'ada',
        workflowId: workflow.id,
      });
      expect(shown?.status).toBe('cancelled');
      expect(shown?.tasks.map((task) => [task.status, task.result])).toEqual([
        ['cancelled', null],
        ['cancelled', null],
      ]);
      expect(await storedResults(workflow.id)).toEqual([]);
    });

    it('stores a job result only while the job runs', async () => {
      const queued = await suite.controlPlane.backgroundJobs.startBackgroundJob({
        agentId: 'idle',
        prompt: 'p',
        resultSchema: summarySchema,
      });
      const target = { kind: 'background-job' as const, jobId: queued.id };
      expect(await suite.controlPlane.workTurns.submitResult({ target, result: { summary: 'x' } })).toEqual({
        status: 'closed',
        reason: 'the job is queued: only the turn running it submits its result',
      });
      await suite.controlPlane.backgroundJobs.cancelBackgroundJob({ agentId: 'idle', jobId: queued.id });
      expect(await suite.controlPlane.workTurns.submitResult({ target, result: { summary: 'x' } })).toEqual({
        status: 'closed',
        reason: 'the job is cancelled',
      });
      expect(
        await suite.controlPlane.backgroundJobs.checkBackgroundJob({ agentId: 'idle', jobId: queued.id }),
      ).toMatchObject({
        status: 'cancelled',
        result: null,
      });
    });

    it('still takes results for record-only tasks, which their caller runs, until cancelled', async () => {
      const created = await suite.controlPlane.work.createWorkflow({
        agentId: 'rec',
        name: 'records',
        definition: {},
        tasks: [
          { taskId: 'a', input: {} },
          { taskId: 'b', input: {} },
        ],
        idempotencyKey: 'records',
      });
      expect(
        await suite.controlPlane.work.storeTaskResult({
          workflowId: created.id,
          taskId: 'a',
          result: { n: 1 },
        }),
      ).toEqual({
        stored: true,
      });
      await suite.controlPlane.workflows.cancelWorkflow({ agentId: 'rec', workflowId: created.id });
      expect((await storeRefusal(created.id, 'b', { n: 2 })).message).toBe(
        'taskId: task b takes no result: the workflow was cancelled',
      );
      expect(await storedResults(created.id)).toEqual([{ task_id: 'a', result: { n: 1 } }]);
    });
  });
}
