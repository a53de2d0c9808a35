import { randomUUID } from 'node:crypto';
import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { startWorkflow, summaryTask, uniqueTurnId } from '../__fixtures__/work-fixtures';
import type { TurnSource } from '../index';
import { queryControlPlane } from '../testing';

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: the sources of turns by name`, () => {
    const suite = useControlPlane(backend, {}, 120_000);

    const record = async (source: TurnSource, sourceId?: string) => {
      const id = uniqueTurnId('sources');
      return suite.controlPlane.turns.recordStart({
        id,
        agentId: 'ada',
        source,
        ...(sourceId === undefined ? {} : { sourceId }),
        prompt: 'p',
        workerId: 'worker-s',
      });
    };

    it('names the workflow and task of a task turn, the schedule of a schedule run, the job of a job turn', async () => {
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'compare-releases', [
        summaryTask('review'),
      ]);
      const scheduleId = randomUUID();
      const runId = randomUUID();
      await queryControlPlane(
        suite.controlPlane,
        `INSERT INTO switchyard.schedules (id, agent_id, name, prompt, kind, time_zone, run_at, status)
         VALUES ($1, 'ada', 'morning-mail', 'p', 'once', 'UTC', now(), 'finished')`,
        [scheduleId],
      );
      await queryControlPlane(
        suite.controlPlane,
        `INSERT INTO switchyard.schedule_runs (id, schedule_id, agent_id, slot, idempotency_key)
         VALUES ($1, $2, 'ada', now(), $3)`,
        [runId, scheduleId, `run-${runId}`],
      );
      const task = await record('task', `${workflow.id}/review`);
      const scheduled = await record('schedule', runId);
      const job = await record('job', 'job-7');
      const api = await record('api');
      const lost = await record('schedule', randomUUID());

      const sources = await suite.controlPlane.turns.sources([task, scheduled, job, api, lost]);
      expect(sources.get(task.id)).toEqual({
        workflow: { id: workflow.id, name: 'compare-releases' },
        taskId: 'review',
      });
      expect(sources.get(scheduled.id)).toEqual({
        schedule: { id: scheduleId, name: 'morning-mail' },
        scheduleRunId: runId,
      });
      expect(sources.get(job.id)).toEqual({ jobId: 'job-7' });
      expect(sources.has(api.id)).toBe(false);
      // A run no longer recorded: its id, without a schedule.
      expect(sources.get(lost.id)).toEqual({ scheduleRunId: lost.sourceId });
      expect(await suite.controlPlane.turns.sources([])).toEqual(new Map());
    });

    it("names the turn whose tool call started a task turn's workflow or a job turn's job", async () => {
      const parent = await record('api');
      const workflow = await suite.controlPlane.workflows.startWorkflow({
        agentId: 'ada',
        spec: { name: 'from-a-turn', tasks: [summaryTask('review')] },
        parentTurnId: parent.id,
      });
      const job = await suite.controlPlane.backgroundJobs.startBackgroundJob({
        agentId: 'ada',
        prompt: 'look into it',
        parentTurnId: parent.id,
      });
      const orphanJob = await suite.controlPlane.backgroundJobs.startBackgroundJob({
        agentId: 'ada',
        prompt: 'started by the API',
      });
      const task = await record('task', `${workflow.id}/review`);
      const jobTurn = await record('job', job.id);
      const orphanJobTurn = await record('job', orphanJob.id);

      const sources = await suite.controlPlane.turns.sources([task, jobTurn, orphanJobTurn]);
      expect(sources.get(task.id)).toEqual({
        workflow: { id: workflow.id, name: 'from-a-turn' },
        taskId: 'review',
        parentTurnId: parent.id,
      });
      expect(sources.get(jobTurn.id)).toEqual({ jobId: job.id, parentTurnId: parent.id });
      expect(sources.get(orphanJobTurn.id)).toEqual({ jobId: orphanJob.id });
    });

    it('refuses a parent turn id that is not a turn id, storing nothing', async () => {
      for (const bad of ['', 'turn one', 'x'.repeat(81), 42]) {
        await expect(
          suite.controlPlane.backgroundJobs.startBackgroundJob({
            agentId: 'ada',
            prompt: 'bad parent',
            parentTurnId: bad as string,
          }),
        ).rejects.toThrow(/^parentTurnId: expected a turn id/);
        await expect(
          suite.controlPlane.workflows.startWorkflow({
            agentId: 'ada',
            spec: { name: 'bad-parent', tasks: [summaryTask('review')] },
            parentTurnId: bad as string,
          }),
        ).rejects.toThrow(/^parentTurnId: expected a turn id/);
      }
      const stored = await queryControlPlane<{ count: string }>(
        suite.controlPlane,
        `SELECT (SELECT count(*) FROM switchyard.background_jobs WHERE payload->>'prompt' = 'bad parent')
              + (SELECT count(*) FROM switchyard.workflows WHERE name = 'bad-parent') AS count`,
      );
      expect(Number(stored.rows[0]?.count)).toBe(0);
    });
  });
}
