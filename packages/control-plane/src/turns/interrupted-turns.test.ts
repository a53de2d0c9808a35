import { testBackends } from '@switchyard/test-databases';
import { beforeAll, describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { createGate } from '../__fixtures__/gate';
import { until } from '../__fixtures__/until';
import { startWorkflow, summarySchema, summaryTask, uniqueTurnId } from '../__fixtures__/work-fixtures';
import type { SubmitResultOutcome, TurnRequest, WorkTurn, WorkTurnContext } from '../index';

// A "dead" worker here is a handler that recorded its turn and then stops heartbeating: the test
// marks its turn interrupted (staleAfterMs 0, as embedded PGlite does at start-up) and watches its
// unit go back to the queue, run as the next attempt, and the late worker's result be refused.

const LIVE = 'worker-live';
const DEAD = 'worker-dead';

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: interrupted turns hand their units back`, () => {
    const suite = useControlPlane(backend, {
      workTurns: { pollingIntervalSeconds: 0.5, retryLimit: 1, cancelCheckIntervalMs: 50 },
      turnRequests: { pollingIntervalSeconds: 0.5, retryLimit: 1 },
    });
    // What the work-turn consumer does with a delivery; each test sets it.
    let onWorkTurn: (turn: WorkTurn, context: WorkTurnContext) => Promise<{ output?: string } | undefined> =
      async () => undefined;
    let onTurnRequest: (request: TurnRequest, attempt: number) => Promise<void> = async () => {};

    /** Records a turn as a daemon does before running it. */
    const recordTurn = async (
      source: 'task' | 'job' | 'schedule',
      sourceId: string,
      attempt: number,
      workerId: string,
    ) => {
      const id = uniqueTurnId(`${source}${attempt}`);
      await suite.controlPlane.turns.recordStart({
        id,
        agentId: 'ada',
        source,
        sourceId,
        attempt,
        prompt: 'p',
        workerId,
      });
      return id;
    };
    const jobStates = async (queue: string) =>
      await suite.rows<{ id: string; state: string }>(
        'SELECT id, state FROM pgboss.job WHERE name = $1 ORDER BY created_on, id',
        [queue],
      );

    beforeAll(async () => {
      await suite.controlPlane.workTurns.work((turn, context) => onWorkTurn(turn, context), {
        agentId: 'ada',
        concurrency: 2,
      });
      // Two workers: the "dead" one keeps holding its delivery while the next attempt runs.
      for (let index = 0; index < 2; index += 1) {
        await suite.controlPlane.turnRequests.work(
          (request, { attempt }) => onTurnRequest(request, attempt),
          {
            agentId: 'ada',
          },
        );
      }
    });

    it('hands a dead worker’s task back at once; the next attempt stores the one result, the late one is refused', async () => {
      const deadTurn: { id?: string } = {};
      const late: { outcome?: SubmitResultOutcome; reason?: unknown } = {};
      onWorkTurn = async (turn, { attempt, signal }) => {
        if (turn.kind !== 'workflow-task') return undefined;
        const target = { kind: 'workflow-task' as const, workflowId: turn.workflowId, taskId: turn.taskId };
        if (turn.taskId === 'lead' && attempt === 1) {
          deadTurn.id = await recordTurn('task', `${turn.workflowId}/lead`, 1, DEAD);
          // Taken for dead, but alive: its signal fires once its task went to another attempt, and
          // whatever it then submits is not stored.
          late.reason = await aborted(signal);
          // It submits only after the next attempt stored the task's result.
          await until(
            'the next attempt to store its result',
            () => suite.controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId: turn.workflowId }),
            (shown) => shown?.tasks[0]?.status === 'completed',
          );
          late.outcome = await suite.controlPlane.workTurns.submitResult({
            target,
            attempt,
            result: { summary: 'late' },
          });
          return undefined;
        }
        const id = await recordTurn('task', `${turn.workflowId}/${turn.taskId}`, attempt, LIVE);
        await suite.controlPlane.workTurns.submitResult({
          target,
          attempt,
          result: { summary: `${turn.taskId} attempt ${attempt}` },
        });
        await suite.controlPlane.turns.recordEnd({
          id,
          status: 'ended-by-tool',
          output: '',
          usage: {
            inputTokens: 0,
            cachedInputTokens: 0,
            outputTokens: 0,
            reasoningTokens: 0,
            totalTokens: 0,
          },
          iterations: 1,
        });
        return undefined;
      };
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'recovered', [
        summaryTask('lead', { prompt: 'lead' }),
        {
          id: 'follow',
          prompt: 'follow {{tasks.lead.result}}',
          resultSchema: summarySchema,
          dependsOn: ['lead'],
        },
      ]);
      await until('the first attempt to record its turn', async () => deadTurn.id, Boolean);
      const before = await suite.rows<{ job_id: string }>(
        "SELECT job_id FROM switchyard.workflow_tasks WHERE workflow_id = $1 AND task_id = 'lead'",
        [workflow.id],
      );

      const marked = await suite.controlPlane.turns.markInterrupted({
        staleAfterMs: 0,
        exceptWorkerId: LIVE,
      });
      expect(marked).toHaveLength(1);
      expect(marked[0]).toMatchObject({
        id: deadTurn.id,
        status: 'interrupted',
        attempt: 1,
        recovery: {
          unit: 'workflow-task',
          unitId: `${workflow.id}/lead`,
          attempt: 1,
          previousWorkerId: DEAD,
          outcome: 'requeued',
          retryAt: expect.stringMatching(/^\d{4}-/),
          description: `task ${workflow.id}/lead handed back to its queue: attempt 2 starts at once on any live worker`,
        },
      });
      // The record says so too, after the reason.
      expect((await suite.controlPlane.turns.get(deadTurn.id ?? ''))?.error).toBe(
        `the worker running this turn stopped before the turn ended; task ${workflow.id}/lead handed back to its queue: attempt 2 starts at once on any live worker`,
      );
      // Found again (another process sweeping too): nothing more happens.
      expect(
        await suite.controlPlane.turns.markInterrupted({ staleAfterMs: 0, exceptWorkerId: LIVE }),
      ).toEqual([]);

      const done = await until(
        'the workflow to complete',
        () => suite.controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId: workflow.id }),
        (shown) => shown?.status !== 'running',
      );
      expect(done?.status).toBe('completed');
      expect(done?.tasks.map((task) => [task.id, task.attempts, task.result])).toEqual([
        ['lead', 2, { summary: 'lead attempt 2' }],
        ['follow', 1, { summary: 'follow attempt 1' }],
      ]);
      await until('the late submission', async () => late.outcome, Boolean);
      expect(String(late.reason)).toMatch(/attempt 1 was handed to another worker/);
      expect(late.outcome).toEqual({
        status: 'already-stored',
      });
      const results = await suite.rows<{ count: number }>(
        'SELECT count(*)::int AS count FROM switchyard.task_results WHERE workflow_id = $1',
        [workflow.id],
      );
      expect(results[0]?.count).toBe(2);
      // The old delivery's job is cancelled (its late completion changed nothing), the new one done.
      const jobs = new Map(
        (await jobStates('switchyard.work-turns.ada')).map((job) => [job.id, job.state] as const),
      );
      expect(jobs.get(before[0]?.job_id ?? '')).toBe('cancelled');
    });

    it('refuses a late result of a superseded attempt while the next attempt still runs', async () => {
      const second = createGate();
      const deadTurn: { id?: string } = {};
      const attempts: number[] = [];
      onWorkTurn = async (turn, { attempt, signal }) => {
        if (turn.kind !== 'workflow-task') return undefined;
        attempts.push(attempt);
        if (attempt === 1) {
          deadTurn.id = await recordTurn('task', `${turn.workflowId}/${turn.taskId}`, 1, DEAD);
          await aborted(signal);
          return undefined;
        }
        await second.opened;
        return undefined;
      };
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'fenced', [summaryTask('only')]);
      await until('the first attempt', async () => deadTurn.id, Boolean);
      await suite.controlPlane.turns.markInterrupted({ staleAfterMs: 0, exceptWorkerId: LIVE });
      await until(
        'the second attempt',
        async () => attempts,
        (list) => list.includes(2),
      );
      const target = { kind: 'workflow-task' as const, workflowId: workflow.id, taskId: 'only' };
      expect(
        await suite.controlPlane.workTurns.submitResult({ target, attempt: 1, result: { summary: 'stale' } }),
      ).toEqual({
        status: 'closed',
        reason:
          'attempt 1 of this task was handed to another worker (this one was taken for dead): its result is not stored; stop here',
      });
      await expect(
        suite.controlPlane.work.storeTaskResult({
          workflowId: workflow.id,
          taskId: 'only',
          attempt: 1,
          result: { summary: 'x' },
        }),
      ).rejects.toThrow(
        /^taskId: task only takes no result: attempt 1 of this task was handed to another worker/,
      );
      expect(
        await suite.controlPlane.workTurns.submitResult({ target, attempt: 2, result: { summary: 'kept' } }),
      ).toEqual({
        status: 'stored',
      });
      second.open();
      const shown = await suite.controlPlane.workflows.showWorkflow({
        agentId: 'ada',
        workflowId: workflow.id,
      });
      expect(shown?.tasks[0]).toMatchObject({
        status: 'completed',
        attempts: 2,
        result: { summary: 'kept' },
      });
    });

    it('hands back a dead worker’s background job; only the next attempt’s text is stored', async () => {
      const deadTurn: { id?: string } = {};
      onWorkTurn = async (turn, { attempt, signal }) => {
        if (turn.kind !== 'background-job') return undefined;
        if (attempt === 1) {
          deadTurn.id = await recordTurn('job', turn.jobId, 1, DEAD);
          await aborted(signal);
          return { output: 'late text' };
        }
        return { output: `text of attempt ${attempt}` };
      };
      const job = await suite.controlPlane.backgroundJobs.startBackgroundJob({ agentId: 'ada', prompt: 'p' });
      await until('the first attempt', async () => deadTurn.id, Boolean);
      const [marked] = await suite.controlPlane.turns.markInterrupted({
        staleAfterMs: 0,
        exceptWorkerId: LIVE,
      });
      expect(marked?.recovery).toMatchObject({
        unit: 'background-job',
        unitId: job.id,
        outcome: 'requeued',
        previousWorkerId: DEAD,
      });
      const finished = await until(
        'the job to finish',
        () => suite.controlPlane.backgroundJobs.checkBackgroundJob({ agentId: 'ada', jobId: job.id }),
        (found) => found?.status === 'completed' || found?.status === 'failed',
      );
      expect(finished).toMatchObject({ status: 'completed', result: { text: 'text of attempt 2' } });
      // The first attempt's late text arrives after the second stored its result: nothing changes.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(
        await suite.controlPlane.backgroundJobs.checkBackgroundJob({ agentId: 'ada', jobId: job.id }),
      ).toMatchObject({
        status: 'completed',
        result: { text: 'text of attempt 2' },
      });
    });

    it('hands back a dead worker’s schedule fire; the late attempt cannot fail or complete the run', async () => {
      const deadReleased = createGate();
      const deadTurn: { id?: string } = {};
      const attempts: number[] = [];
      onTurnRequest = async (request, attempt) => {
        attempts.push(attempt);
        if (attempt === 1) {
          deadTurn.id = await recordTurn('schedule', request.runId, 1, DEAD);
          await deadReleased.opened;
          // Its late failure must not undo the next attempt's completion.
          throw new Error('the slow worker failed late');
        }
      };
      const runAt = new Date(Date.now() + 60_000);
      const schedule = await suite.controlPlane.schedules.createSchedule({
        agentId: 'ada',
        name: 'fire',
        prompt: 'fire',
        runAt: runAt.toISOString(),
      });
      await suite.controlPlane.scheduler.tick({ now: new Date(runAt.getTime() + 1_000) });
      await until('the first attempt', async () => deadTurn.id, Boolean);
      const [marked] = await suite.controlPlane.turns.markInterrupted({
        staleAfterMs: 0,
        exceptWorkerId: LIVE,
      });
      const runs = async () =>
        await suite.rows<{ id: string; status: string; attempts: number; error: string | null }>(
          'SELECT id, status, attempts, error FROM switchyard.schedule_runs WHERE schedule_id = $1',
          [schedule.id],
        );
      const [run] = await runs();
      expect(marked?.recovery).toMatchObject({ unit: 'schedule-run', unitId: run?.id, outcome: 'requeued' });
      await until('the run to complete', runs, (rows) => rows[0]?.status === 'completed');
      deadReleased.open();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await runs()).toEqual([{ id: run?.id, status: 'completed', attempts: 2, error: null }]);
      expect(attempts).toEqual([1, 2]);
      const states = async () =>
        (await jobStates('switchyard.turn-requests.ada'))
          .map((job) => (job.id === run?.id ? `first: ${job.state}` : `second: ${job.state}`))
          .sort();
      // The queue completes the second job by its own statement after the run's row reads completed.
      await until('the second job to complete', states, (rows) => rows.includes('second: completed'));
      expect(await states()).toEqual(['first: cancelled', 'second: completed']);
    });

    it('parks a unit that keeps killing its worker as failed after the retry limit, with the reason', async () => {
      const recorded: string[] = [];
      /** Waits for the dead worker to record attempt `attempt`'s turn, then marks that turn interrupted. */
      const interruptAttempt = async (attempt: number) => {
        await until(
          `attempt ${attempt}`,
          async () => recorded.length,
          (count) => count === attempt,
        );
        const [interrupted] = await suite.controlPlane.turns.markInterrupted({
          staleAfterMs: 0,
          exceptWorkerId: LIVE,
        });
        return interrupted;
      };
      onWorkTurn = async (turn, { attempt, signal }) => {
        if (turn.kind !== 'workflow-task') return undefined;
        recorded.push(await recordTurn('task', `${turn.workflowId}/${turn.taskId}`, attempt, DEAD));
        await aborted(signal);
        return undefined;
      };
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'poison', [
        summaryTask('poison'),
        summaryTask('after', { dependsOn: ['poison'] }),
      ]);
      const first = await interruptAttempt(1);
      expect(first?.recovery?.outcome).toBe('requeued');
      const second = await interruptAttempt(2);
      const reason =
        'the worker running attempt 2 stopped (its heartbeat went stale), and that was the last of the 2 attempts allowed (retryLimit 1)';
      expect(second?.recovery).toMatchObject({ outcome: 'failed', attempt: 2 });
      expect(second?.recovery).not.toHaveProperty('retryAt');
      expect(second?.error).toBe(
        `the worker running this turn stopped before the turn ended; task ${workflow.id}/poison failed: ${reason}`,
      );
      const shown = await suite.controlPlane.workflows.showWorkflow({
        agentId: 'ada',
        workflowId: workflow.id,
      });
      expect(shown?.status).toBe('failed');
      expect(shown?.tasks.map((task) => [task.id, task.status, task.attempts, task.error])).toEqual([
        ['poison', 'failed', 2, reason],
        ['after', 'failed', 0, `dependency "poison" failed: ${reason}`],
      ]);
      // No third attempt is ever delivered.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(recorded).toHaveLength(2);
    });

    it('leaves a unit alone that ended or was taken over, and a turn without an attempt', async () => {
      onWorkTurn = async (turn, { attempt }) => {
        if (turn.kind !== 'workflow-task') return undefined;
        await suite.controlPlane.workTurns.submitResult({
          target: { kind: 'workflow-task', workflowId: turn.workflowId, taskId: turn.taskId },
          attempt,
          result: { summary: 'done' },
        });
        return undefined;
      };
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'ended', [summaryTask('a')]);
      await until(
        'the workflow to complete',
        () => suite.controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId: workflow.id }),
        (shown) => shown?.status === 'completed',
      );
      // A turn record left running for the finished task (its worker died after storing the result).
      await recordTurn('task', `${workflow.id}/a`, 1, DEAD);
      await suite.controlPlane.turns.recordStart({
        id: uniqueTurnId('api'),
        agentId: 'ada',
        source: 'api',
        prompt: 'p',
        workerId: DEAD,
      });
      const marked = await suite.controlPlane.turns.markInterrupted({
        staleAfterMs: 0,
        exceptWorkerId: LIVE,
      });
      // Both were recorded in the same millisecond or so: the sweep's order between them is its id order.
      expect(marked).toHaveLength(2);
      expect(Object.fromEntries(marked.map((turn) => [turn.source, turn.recovery ?? turn.source]))).toEqual({
        task: {
          unit: 'workflow-task',
          unitId: `${workflow.id}/a`,
          attempt: 1,
          previousWorkerId: DEAD,
          outcome: 'settled',
          description: `task ${workflow.id}/a not handed back: it is completed (its workflow is completed)`,
        },
        api: 'api',
      });
      const rows = await suite.rows<{ count: number }>(
        "SELECT count(*)::int AS count FROM pgboss.job WHERE name = 'switchyard.work-turns.ada' AND data->>'workflowId' = $1",
        [workflow.id],
      );
      expect(rows[0]?.count).toBe(1);
    });
  });
}
