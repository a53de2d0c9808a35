import { testBackends } from '@switchyard/test-databases';
import { beforeAll, describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { createGate } from '../__fixtures__/gate';
import { until } from '../__fixtures__/until';
import { startWorkflow, summarySchema, summaryTask } from '../__fixtures__/work-fixtures';
import { ControlPlaneInputError, type WorkflowRecord, type WorkTurn } from '../index';
import { queryControlPlane } from '../testing';
import { workTurnQueueName } from './work-turn-queue';

/** A task's status right after its workflow started: queued, or already picked up by a consumer. */
const QUEUED_OR_RUNNING = expect.stringMatching(/^(queued|running)$/);
/** The status of each of a workflow's tasks, in order. */
const statuses = (workflow: WorkflowRecord) => workflow.tasks.map((task) => task.status);

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: workflows, task results and background jobs`, () => {
    const suite = useControlPlane(backend, {
      workTurns: { pollingIntervalSeconds: 0.5, retryLimit: 0, cancelCheckIntervalMs: 50 },
      workflows: { maxConcurrentTasks: 2 },
    });
    const turns: WorkTurn[] = [];
    /** Waits for workflow `workflowId` of 'ada' to leave `running`; returns it as it ended. */
    const workflowEnd = (workflowId: string) =>
      until(
        'the workflow to end',
        () => suite.controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId }),
        (workflow) => workflow?.status !== 'running',
      );
    // Turns wait for this before doing anything, so a test can look at the state right after a start.
    let gate: Promise<void> = Promise.resolve();
    let openGate: () => void = () => {};
    const closeGate = () => {
      gate = new Promise((resolve) => {
        openGate = resolve;
      });
    };
    // What each agent's consumer does with a turn; tests swap it.
    let behaviour: (turn: WorkTurn, signal: AbortSignal) => Promise<{ output?: string } | undefined> =
      async () => undefined;

    beforeAll(async () => {
      await suite.controlPlane.workTurns.work(
        async (turn, { signal }) => {
          turns.push(turn);
          await gate;
          return behaviour(turn, signal);
        },
        { agentId: 'ada' },
      );
    });

    it("reports queue depths and shows any agent's workflow to an operator, with its agent", async () => {
      // Agent cy has no consumer here: its task's turn stays waiting in its queue.
      const started = await startWorkflow(suite.controlPlane, 'cy', 'inspected', [
        summaryTask('only', { prompt: 'x' }),
      ]);
      const queues = await suite.controlPlane.queueDepths();
      const cy = queues.find((queue) => queue.queue === workTurnQueueName('cy'));
      expect(cy?.waiting).toBe(1);
      expect(cy?.oldestWaitingSeconds).toBeGreaterThanOrEqual(0);
      expect(queues.find((queue) => queue.queue === workTurnQueueName('ada'))?.waiting).toBe(0);
      const inspected = await suite.controlPlane.workflows.inspectWorkflow({ workflowId: started.id });
      expect(inspected).toMatchObject({ id: started.id, agentId: 'cy', name: 'inspected' });
      expect(inspected?.tasks.map((task) => task.id)).toEqual(['only']);
      // Agents stay scoped: another agent does not see it, and the agent's view has no agentId.
      expect(
        await suite.controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId: started.id }),
      ).toBeNull();
      expect(
        await suite.controlPlane.workflows.showWorkflow({ agentId: 'cy', workflowId: started.id }),
      ).not.toHaveProperty('agentId');
      expect(await suite.controlPlane.workflows.inspectWorkflow({ workflowId: 'not-a-uuid' })).toBeNull();
    });

    it('refuses an invalid spec before storing anything, naming the task and schema path', async () => {
      const error = await suite.controlPlane.workflows
        .startWorkflow({
          agentId: 'ada',
          spec: {
            name: 'bad',
            tasks: [
              summaryTask('a', { prompt: 'x' }),
              { id: 'b', prompt: 'y', resultSchema: { ...summarySchema, additionalProperties: true } },
            ],
          },
        })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(ControlPlaneInputError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/^tasks\[1\]\.resultSchema: task "b": resultSchema at \/: /);
      const { rows } = await queryControlPlane(
        suite.controlPlane,
        "SELECT 1 FROM switchyard.workflows WHERE name = 'bad'",
      );
      expect(rows).toEqual([]);
    });

    it('runs dependency-free tasks, then the dependant with their results in its prompt', async () => {
      behaviour = async (turn) => {
        if (turn.kind !== 'workflow-task') return undefined;
        // Read back from jsonb, yet in strict mode's canonical key order (submit_result is sent strict).
        expect(Object.keys(turn.resultSchema)).toEqual([
          'type',
          'properties',
          'required',
          'additionalProperties',
        ]);
        const value = turn.taskId === 'merge' ? `merged: ${turn.prompt}` : `found ${turn.taskId}`;
        const invalid = await suite.controlPlane.workTurns.submitResult({
          target: { kind: 'workflow-task', workflowId: turn.workflowId, taskId: turn.taskId },
          result: { summary: 1, extra: true },
        });
        expect(invalid).toEqual({
          status: 'rejected',
          problems: [
            '/extra: unexpected property: the schema does not allow it',
            '/summary: expected string',
          ],
        });
        const target = { kind: 'workflow-task' as const, workflowId: turn.workflowId, taskId: turn.taskId };
        expect(
          await suite.controlPlane.workTurns.submitResult({ target, result: { summary: value } }),
        ).toEqual({
          status: 'stored',
        });
        expect(
          await suite.controlPlane.workTurns.submitResult({ target, result: { summary: 'again' } }),
        ).toEqual({
          status: 'already-stored',
        });
        return undefined;
      };
      closeGate();
      const started = await startWorkflow(suite.controlPlane, 'ada', 'research', [
        {
          id: 'left',
          prompt: 'look left',
          resultSchema: {
            additionalProperties: false,
            required: ['summary'],
            properties: summarySchema.properties,
            type: 'object',
          },
        },
        summaryTask('right', { prompt: 'look right' }),
        {
          id: 'merge',
          prompt: 'L={{tasks.left.result}} R={{tasks.right.result}}',
          resultSchema: summarySchema,
          dependsOn: ['left', 'right'],
        },
      ]);
      expect(statuses(started)).toEqual([QUEUED_OR_RUNNING, QUEUED_OR_RUNNING, 'pending']);
      openGate();
      const done = await workflowEnd(started.id);
      expect(done?.status).toBe('completed');
      expect(done?.tasks.map((task) => task.result)).toEqual([
        { summary: 'found left' },
        { summary: 'found right' },
        { summary: 'merged: L={"summary":"found left"} R={"summary":"found right"}' },
      ]);
      const { rows } = await queryControlPlane<{ count: number }>(
        suite.controlPlane,
        'SELECT count(*)::int AS count FROM switchyard.task_results WHERE workflow_id = $1',
        [started.id],
      );
      expect(rows[0]?.count).toBe(3);
      expect(
        await suite.controlPlane.workflows.showWorkflow({ agentId: 'bob', workflowId: started.id }),
      ).toBeNull();
      expect(
        (await suite.controlPlane.workflows.listWorkflows({ agentId: 'ada' })).map((item) => item.id),
      ).toContain(started.id);
      expect(await suite.controlPlane.workflows.listWorkflows({ agentId: 'bob' })).toEqual([]);
    });

    it('fails the dependants of a task whose turn ends without a result, and the workflow', async () => {
      behaviour = async (turn) => {
        if (turn.kind === 'workflow-task' && turn.taskId === 'ok') {
          await suite.controlPlane.workTurns.submitResult({
            target: { kind: 'workflow-task', workflowId: turn.workflowId, taskId: turn.taskId },
            result: { summary: 'fine' },
          });
        }
        return undefined;
      };
      const started = await startWorkflow(suite.controlPlane, 'ada', 'doomed', [
        summaryTask('ok'),
        summaryTask('silent'),
        summaryTask('after', { dependsOn: ['silent'] }),
        summaryTask('last', { dependsOn: ['after'] }),
      ]);
      const done = await workflowEnd(started.id);
      expect(done?.status).toBe('failed');
      expect(done?.tasks.map((task) => [task.id, task.status, task.error])).toEqual([
        ['ok', 'completed', null],
        ['silent', 'failed', 'the task turn ended without an accepted submit_result'],
        [
          'after',
          'failed',
          'dependency "silent" failed: the task turn ended without an accepted submit_result',
        ],
        ['last', 'failed', expect.stringMatching(/^dependency "after" failed: dependency "silent" failed/)],
      ]);
    });

    it('cancels mid-way: the running turn is aborted, pending tasks never start, results stay', async () => {
      const aborted: string[] = [];
      behaviour = async (turn, signal) => {
        if (turn.kind !== 'workflow-task') return undefined;
        if (turn.taskId === 'quick') {
          await suite.controlPlane.workTurns.submitResult({
            target: { kind: 'workflow-task', workflowId: turn.workflowId, taskId: turn.taskId },
            result: { summary: 'kept' },
          });
          return undefined;
        }
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        aborted.push(turn.taskId);
        return undefined;
      };
      const started = await startWorkflow(suite.controlPlane, 'ada', 'cancelled', [
        summaryTask('quick'),
        summaryTask('slow'),
        summaryTask('never', { dependsOn: ['slow'] }),
      ]);
      await until(
        'the slow task to run after the first one completed',
        () => suite.controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId: started.id }),
        (workflow) => workflow?.tasks[1]?.status === 'running' && workflow.tasks[0]?.status === 'completed',
      );
      const cancelled = await suite.controlPlane.workflows.cancelWorkflow({
        agentId: 'ada',
        workflowId: started.id,
      });
      expect(cancelled?.status).toBe('cancelled');
      expect(cancelled?.tasks.map((task) => [task.id, task.status, task.result])).toEqual([
        ['quick', 'completed', { summary: 'kept' }],
        ['slow', 'cancelled', null],
        ['never', 'cancelled', null],
      ]);
      await until(
        'the slow task to be aborted',
        async () => aborted,
        (list) => list.includes('slow'),
      );
      expect(aborted).toEqual(['slow']);
      expect(turns.some((turn) => turn.kind === 'workflow-task' && turn.taskId === 'never')).toBe(false);
      const late = await suite.controlPlane.workTurns.submitResult({
        target: { kind: 'workflow-task', workflowId: started.id, taskId: 'slow' },
        result: { summary: 'late' },
      });
      expect(late).toEqual({ status: 'closed', reason: 'the workflow was cancelled' });
    });

    it('runs a background job, stores its result, and scopes it to its agent', async () => {
      behaviour = async (turn) => {
        if (turn.kind !== 'background-job') return undefined;
        if (turn.resultSchema === null) return { output: `answered: ${turn.prompt}` };
        await suite.controlPlane.workTurns.submitResult({
          target: { kind: 'background-job', jobId: turn.jobId },
          result: { summary: 'structured' },
        });
        return undefined;
      };
      const plain = await suite.controlPlane.backgroundJobs.startBackgroundJob({
        agentId: 'ada',
        prompt: 'hello',
      });
      const typed = await suite.controlPlane.backgroundJobs.startBackgroundJob({
        agentId: 'ada',
        prompt: 'typed',
        resultSchema: summarySchema,
      });
      expect(plain.status).toBe('queued');
      const check = (jobId: string) =>
        until(
          'the job to end',
          () => suite.controlPlane.backgroundJobs.checkBackgroundJob({ agentId: 'ada', jobId }),
          (job) => job?.status === 'completed' || job?.status === 'failed',
        );
      expect(await check(plain.id)).toMatchObject({
        status: 'completed',
        result: { text: 'answered: hello' },
      });
      expect(await check(typed.id)).toMatchObject({ status: 'completed', result: { summary: 'structured' } });
      expect(
        await suite.controlPlane.backgroundJobs.checkBackgroundJob({ agentId: 'bob', jobId: plain.id }),
      ).toBeNull();
      expect(
        await suite.controlPlane.workTurns.submitResult({
          target: { kind: 'background-job', jobId: typed.id },
          result: { summary: 'twice' },
        }),
      ).toEqual({ status: 'already-stored' });
    });

    it('queues at most maxConcurrentTasks tasks of one workflow at once', async () => {
      behaviour = async (turn) => {
        if (turn.kind === 'workflow-task') {
          await suite.controlPlane.workTurns.submitResult({
            target: { kind: 'workflow-task', workflowId: turn.workflowId, taskId: turn.taskId },
            result: { summary: turn.taskId },
          });
        }
        return undefined;
      };
      closeGate();
      const started = await startWorkflow(
        suite.controlPlane,
        'ada',
        'wide',
        ['one', 'two', 'three'].map((id) => ({ id, prompt: id, resultSchema: summarySchema })),
      );
      expect(statuses(started)).toEqual([QUEUED_OR_RUNNING, QUEUED_OR_RUNNING, 'pending']);
      openGate();
      const done = await workflowEnd(started.id);
      expect(done?.status).toBe('completed');
    });

    it('cancels a running background job: its turn is aborted and it stores nothing', async () => {
      let abortedJob = '';
      behaviour = async (turn, signal) => {
        if (turn.kind !== 'background-job') return undefined;
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        abortedJob = turn.jobId;
        return { output: 'too late' };
      };
      const job = await suite.controlPlane.backgroundJobs.startBackgroundJob({
        agentId: 'ada',
        prompt: 'wait',
      });
      await until(
        'the job to run',
        () => suite.controlPlane.backgroundJobs.checkBackgroundJob({ agentId: 'ada', jobId: job.id }),
        (found) => found?.status === 'running',
      );
      expect(
        await suite.controlPlane.backgroundJobs.cancelBackgroundJob({ agentId: 'bob', jobId: job.id }),
      ).toBeNull();
      const cancelled = await suite.controlPlane.backgroundJobs.cancelBackgroundJob({
        agentId: 'ada',
        jobId: job.id,
      });
      expect(cancelled?.status).toBe('cancelled');
      await until(
        'the job to be aborted',
        async () => abortedJob,
        (id) => id === job.id,
      );
      const final = await suite.controlPlane.backgroundJobs.checkBackgroundJob({
        agentId: 'ada',
        jobId: job.id,
      });
      expect(final).toMatchObject({ status: 'cancelled', result: null });
    });

    it('carries the traceparent a workflow or job was started with to its turns, and refuses a bad one', async () => {
      behaviour = async () => undefined;
      const traceParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const workflow = await suite.controlPlane.workflows.startWorkflow({
        agentId: 'ada',
        traceParent,
        spec: { name: 'traced', tasks: [summaryTask('only', { prompt: 'traced task' })] },
      });
      const job = await suite.controlPlane.backgroundJobs.startBackgroundJob({
        agentId: 'ada',
        prompt: 'traced job',
        traceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
      });
      const delivered = await until(
        'both traced turns',
        async () => turns.filter((turn) => turn.prompt === 'traced task' || turn.prompt === 'traced job'),
        (found) => found.length === 2,
      );
      const task = delivered.find((turn) => turn.kind === 'workflow-task');
      expect(task).toMatchObject({ workflowId: workflow.id, traceParent });
      expect(delivered.find((turn) => turn.kind === 'background-job')).toMatchObject({
        jobId: job.id,
        traceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
      });
      for (const bad of [
        '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        '00-0-0-0',
        'x'.repeat(10_000),
      ]) {
        await expect(
          suite.controlPlane.backgroundJobs.startBackgroundJob({
            agentId: 'ada',
            prompt: 'bad trace',
            traceParent: bad,
          }),
        ).rejects.toThrow(/^traceParent: expected a W3C traceparent/);
      }
      const { rows } = await queryControlPlane(
        suite.controlPlane,
        "SELECT 1 FROM switchyard.background_jobs WHERE payload->>'prompt' = 'bad trace'",
      );
      expect(rows).toEqual([]);
    });

    it('refuses workflow and job creation from a task turn', async () => {
      const origin = {
        kind: 'workflow-task' as const,
        workflowId: '00000000-0000-4000-8000-000000000000',
        taskId: 'a',
      };
      await expect(
        suite.controlPlane.workflows.startWorkflow({
          agentId: 'ada',
          origin,
          spec: { name: 'nested', tasks: [summaryTask('a')] },
        }),
      ).rejects.toThrow(/origin: a workflow task or background job turn cannot start workflows/);
      await expect(
        suite.controlPlane.backgroundJobs.startBackgroundJob({ agentId: 'ada', origin, prompt: 'p' }),
      ).rejects.toThrow(/cannot start background jobs/);
    });

    it('re-validates results stored through the low-level work store, for running tasks only', async () => {
      const held = createGate();
      const running: string[] = [];
      behaviour = async (turn) => {
        if (turn.kind === 'workflow-task') running.push(turn.workflowId);
        await held.opened;
        return undefined;
      };
      const started = await startWorkflow(suite.controlPlane, 'ada', 'low-level', [summaryTask('a')]);
      await until(
        'the job to run',
        async () => running,
        (list) => list.includes(started.id),
      );
      await expect(
        suite.controlPlane.work.storeTaskResult({
          workflowId: started.id,
          taskId: 'a',
          result: { summary: 5 },
        }),
      ).rejects.toThrow(/result: does not match the task's result schema: \/summary: expected string/);
      expect(
        await suite.controlPlane.work.storeTaskResult({
          workflowId: started.id,
          taskId: 'a',
          result: { summary: 'ok' },
        }),
      ).toEqual({ stored: true });
      held.open();
      // Agent carol has no consumer: her task stays queued, and takes no result from anyone.
      const queued = await startWorkflow(suite.controlPlane, 'carol', 'low-level', [summaryTask('a')]);
      await expect(
        suite.controlPlane.work.storeTaskResult({
          workflowId: queued.id,
          taskId: 'a',
          result: { summary: 'x' },
        }),
      ).rejects.toThrow(/^taskId: task a takes no result: the task is queued/);
    });
  });
}
