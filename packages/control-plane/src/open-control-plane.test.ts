import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from './__fixtures__/control-plane-suite';
import { createGate } from './__fixtures__/gate';
import { inputError } from './__fixtures__/input-errors';
import { until } from './__fixtures__/until';
import { MIGRATIONS } from './database/migrations';
import type { CreateScheduleRequest, TurnRequest } from './index';

const MINUTE = 60_000;

for (const backend of testBackends) {
  describe.runIf(backend.available)(backend.title, () => {
    const suite = useControlPlane(backend, {
      schedules: { minimumIntervalSeconds: 120, maxSchedulesPerAgent: 3 },
      turnRequests: { expireInSeconds: 5, retryLimit: 2, retryDelaySeconds: 0, pollingIntervalSeconds: 0.5 },
      maintenanceIntervalSeconds: 1,
    });
    /** Creates a schedule of `agentId` named `name` that runs `prompt` at `timing`. */
    const createSchedule = (
      agentId: string,
      name: string,
      prompt: string,
      timing: Pick<CreateScheduleRequest, 'cron' | 'timeZone' | 'runAt'>,
    ) => suite.controlPlane.schedules.createSchedule({ agentId, name, prompt, ...timing });

    describe('migrations and constraints', () => {
      it('creates every table with the effectively-once UNIQUE constraints', async () => {
        const rows = await suite.rows<{ table_name: string; definition: string }>(
          `SELECT conrelid::regclass::text AS table_name, pg_get_constraintdef(oid) AS definition
           FROM pg_constraint WHERE contype = 'u' AND connamespace = 'switchyard'::regnamespace`,
        );
        const unique = rows.map((row) => `${row.table_name} ${row.definition}`);
        expect(unique).toContain('switchyard.schedule_runs UNIQUE (schedule_id, slot)');
        expect(unique).toContain('switchyard.task_results UNIQUE (workflow_id, task_id)');
        // An approval's key is its call's item in the turn's transcript; older approvals keep the call id.
        const indexes = await suite.rows<{ definition: string }>(
          "SELECT indexdef AS definition FROM pg_indexes WHERE schemaname = 'switchyard' AND tablename = 'approvals'",
        );
        const uniqueIndexes = indexes.map((index) => index.definition.replace(/ USING btree/, ''));
        expect(uniqueIndexes).toContain(
          'CREATE UNIQUE INDEX approvals_turn_call_index ON switchyard.approvals (turn_id, call_index) WHERE (call_index IS NOT NULL)',
        );
        expect(uniqueIndexes).toContain(
          'CREATE UNIQUE INDEX approvals_turn_call_id ON switchyard.approvals (turn_id, call_id) WHERE (call_index IS NULL)',
        );
        const tables = await suite.rows<{ name: string }>(
          "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'switchyard' ORDER BY 1",
        );
        expect(tables.map((table) => table.name)).toEqual([
          'agent_starts',
          'agent_token_usage',
          'approvals',
          'background_jobs',
          'brain_page_versions',
          'brain_pages',
          'brain_usage',
          'idempotency_keys',
          'migrations',
          'schedule_runs',
          'schedules',
          'task_results',
          'turn_journal',
          'turns',
          'workflow_tasks',
          'workflows',
        ]);
      });

      it('records each migration once, however often the control plane opens', async () => {
        const rows = await suite.rows<{ version: number }>('SELECT version FROM switchyard.migrations');
        expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
      });
    });

    describe('schedule service', () => {
      it('creates a cron schedule and reports the next three fire times in its zone', async () => {
        const created = await createSchedule('ada', 'standup', 'Summarise yesterday.', {
          cron: '0 9 * * *',
          timeZone: 'Asia/Kolkata',
        });
        expect(created).toMatchObject({
          agentId: 'ada',
          kind: 'cron',
          status: 'active',
          timeZone: 'Asia/Kolkata',
        });
        expect(created.nextFireTimes).toHaveLength(3);
        for (const time of created.nextFireTimes) expect(time).toMatch(/T09:00:00\+05:30$/);
        expect(Date.parse(created.nextFireTimes[0] ?? '')).toBeGreaterThan(Date.now());
      });

      it('creates a one-shot schedule', async () => {
        const runAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000).toISOString();
        const created = await createSchedule('ada', 'reminder', 'Check the oven.', { runAt });
        expect(created.kind).toBe('once');
        expect(created.nextFireTimes).toHaveLength(1);
        expect(Date.parse(created.nextFireTimes[0] ?? '')).toBe(Date.parse(runAt));
      });

      it('creates one schedule per create key, however often the create is run', async () => {
        const runAt = new Date(Date.now() + 3_600_000).toISOString();
        const request = {
          agentId: 'ada',
          name: 'keyed',
          prompt: 'Once.',
          runAt,
          idempotencyKey: 'tool:turn_k:3',
        };
        const first = await suite.controlPlane.schedules.createSchedule(request);
        const again = await suite.controlPlane.schedules.createSchedule(request);
        expect(again.id).toBe(first.id);
        const listed = await suite.controlPlane.schedules.listSchedules({ agentId: 'ada' });
        expect(listed.filter((schedule) => schedule.name === 'keyed')).toHaveLength(1);
        await expect(
          suite.controlPlane.schedules.createSchedule({ ...request, agentId: 'bob' }),
        ).rejects.toThrow(/idempotencyKey: belongs to another agent/);
        await suite.controlPlane.schedules.cancelSchedule({ agentId: 'ada', scheduleId: first.id });
      });

      it('scopes list and cancel to the calling agent', async () => {
        const mine = await createSchedule('bob', 'digest', 'Send the digest.', {
          cron: '30 7 * * 1-5',
          timeZone: 'Europe/Berlin',
        });
        expect(
          (await suite.controlPlane.schedules.listSchedules({ agentId: 'eve' })).map((s) => s.id),
        ).not.toContain(mine.id);
        expect(
          await suite.controlPlane.schedules.cancelSchedule({ agentId: 'eve', scheduleId: mine.id }),
        ).toBeNull();
        expect(
          (await suite.controlPlane.schedules.listSchedules({ agentId: 'bob' })).map((s) => s.id),
        ).toEqual([mine.id]);
        const cancelled = await suite.controlPlane.schedules.cancelSchedule({
          agentId: 'bob',
          scheduleId: mine.id,
        });
        expect(cancelled).toMatchObject({ id: mine.id, status: 'cancelled', nextFireTimes: [] });
        expect(await suite.controlPlane.schedules.listSchedules({ agentId: 'bob' })).toEqual([]);
        expect(
          await suite.controlPlane.schedules.listSchedules({ agentId: 'bob', includeInactive: true }),
        ).toHaveLength(1);
        expect(
          await suite.controlPlane.schedules.cancelSchedule({ agentId: 'bob', scheduleId: 'not-a-uuid' }),
        ).toBeNull();
      });

      it('refuses invalid cron, unknown zones, past one-shots and too-frequent crons, naming the field', async () => {
        const base = { agentId: 'carol', name: 'x', prompt: 'p' };
        expect(
          (await inputError(suite.controlPlane.schedules.createSchedule({ ...base, cron: '61 * * * *' })))
            .field,
        ).toBe('cron');
        expect(
          (await inputError(suite.controlPlane.schedules.createSchedule({ ...base, cron: '0 9 * *' })))
            .message,
        ).toMatch(/5 fields/);
        expect(
          (
            await inputError(
              suite.controlPlane.schedules.createSchedule({
                ...base,
                cron: '0 9 * * *',
                timeZone: 'Mars/Base',
              }),
            )
          ).field,
        ).toBe('timeZone');
        const past = await inputError(
          suite.controlPlane.schedules.createSchedule({ ...base, runAt: '2020-01-01T00:00:00Z' }),
        );
        expect(past.field).toBe('runAt');
        expect(past.message).toMatch(/in the past/);
        expect(
          (await inputError(suite.controlPlane.schedules.createSchedule({ ...base, cron: '* * * * *' })))
            .field,
        ).toBe('cron');
        expect((await inputError(suite.controlPlane.schedules.createSchedule(base))).message).toMatch(
          /either a cron/,
        );
        expect(await suite.controlPlane.schedules.listSchedules({ agentId: 'carol' })).toEqual([]);
      });

      it('enforces the per-agent limit and unique active names', async () => {
        const base = { agentId: 'dave', prompt: 'p', cron: '0 * * * *' };
        await suite.controlPlane.schedules.createSchedule({ ...base, name: 'one' });
        expect(
          (await inputError(suite.controlPlane.schedules.createSchedule({ ...base, name: 'one' }))).field,
        ).toBe('name');
        await suite.controlPlane.schedules.createSchedule({ ...base, name: 'two' });
        await suite.controlPlane.schedules.createSchedule({ ...base, name: 'three' });
        const over = await inputError(suite.controlPlane.schedules.createSchedule({ ...base, name: 'four' }));
        expect(over.message).toMatch(/limit is 3/);
        expect(await suite.controlPlane.schedules.listSchedules({ agentId: 'dave' })).toHaveLength(3);
      });

      it('rejects NUL characters and huge prompts before the write', async () => {
        const base = { agentId: 'erin', name: 'n', cron: '0 * * * *' };
        const nul = await inputError(
          suite.controlPlane.schedules.createSchedule({ ...base, prompt: 'a\u0000b' }),
        );
        expect(nul).toMatchObject({ field: 'prompt' });
        expect(nul.message).toMatch(/NUL/);
        const huge = await inputError(
          suite.controlPlane.schedules.createSchedule({ ...base, prompt: 'x'.repeat(20_000) }),
        );
        expect(huge.message).toMatch(/over the limit/);
        expect(await suite.controlPlane.schedules.listSchedules({ agentId: 'erin' })).toEqual([]);
      });
    });

    describe('scheduler', () => {
      it('fires a missed cron schedule once for its latest slot, not once per missed slot', async () => {
        const schedule = await createSchedule('frank', 'every-five', 'Tick.', { cron: '*/5 * * * *' });
        const first = Date.parse(schedule.nextFireTimes[0] ?? '');
        // Nothing ticked for an hour: twelve slots passed.
        const later = new Date(first + 60 * MINUTE + 30_000);
        await suite.controlPlane.scheduler.tick({ now: later });
        await suite.controlPlane.scheduler.tick({ now: later });
        const rows = await suite.rows<{ slot: Date }>(
          'SELECT slot FROM switchyard.schedule_runs WHERE schedule_id = $1',
          [schedule.id],
        );
        expect(rows.map((row) => row.slot.toISOString())).toEqual([
          new Date(first + 60 * MINUTE).toISOString(),
        ]);
        const [listed] = await suite.controlPlane.schedules.listSchedules({ agentId: 'frank' });
        expect(Date.parse(listed?.nextFireTimes[0] ?? '')).toBeGreaterThan(Date.now());
      });

      it("lists a schedule's recent runs from the ledger, newest first, with the turn that ran each", async () => {
        const schedule = await createSchedule('ruth', 'hourly', 'Hourly.', { cron: '0 * * * *' });
        const other = await createSchedule('ruth', 'quiet', 'Quiet.', { cron: '30 * * * *' });
        const first = Date.parse(schedule.nextFireTimes[0] ?? '');
        const slots = [0, 1, 2].map((hour) => new Date(first + hour * 60 * MINUTE));
        for (const slot of slots)
          await suite.controlPlane.scheduler.tick({ now: new Date(slot.getTime() + 1000) });
        const rows = await suite.rows<{ id: string; slot: Date }>(
          'SELECT id, slot FROM switchyard.schedule_runs WHERE schedule_id = $1 ORDER BY slot',
          [schedule.id],
        );
        expect(rows.map((row) => row.slot.toISOString())).toEqual(slots.map((slot) => slot.toISOString()));
        // The middle run ran a turn (as the daemon records it: the run id is its sourceId).
        const turnId = `turn_${crypto.randomUUID()}`;
        await suite.controlPlane.turns.recordStart({
          id: turnId,
          agentId: 'ruth',
          source: 'schedule',
          sourceId: rows[1]?.id as string,
          prompt: 'Hourly.',
          workerId: 'worker-ruth',
        });
        const runs = await suite.controlPlane.schedules.listRuns({
          agentId: 'ruth',
          scheduleIds: [schedule.id, other.id, 'not-a-uuid'],
          limit: 2,
        });
        const own = runs.filter((run) => run.scheduleId === schedule.id);
        expect(own.map((run) => [run.slot, run.turnId])).toEqual([
          [slots[2]?.toISOString(), undefined],
          [slots[1]?.toISOString(), turnId],
        ]);
        expect(own[0]).toMatchObject({ status: 'enqueued', attempts: 0, id: rows[2]?.id });
        expect(Date.parse(own[0]?.firedAt ?? '')).toBeGreaterThan(0);
        // The other schedule's slots fired too (each tick is an hour on): its own two newest.
        const others = runs.filter((run) => run.scheduleId === other.id);
        expect(others).toHaveLength(2);
        expect(Date.parse(others[0]?.slot ?? '')).toBeGreaterThan(Date.parse(others[1]?.slot ?? ''));
        expect(runs).toHaveLength(4);
        // Another agent sees none of them.
        expect(
          await suite.controlPlane.schedules.listRuns({ agentId: 'sam', scheduleIds: [schedule.id] }),
        ).toEqual([]);
        expect(
          (
            await inputError(
              suite.controlPlane.schedules.listRuns({ agentId: 'ruth', scheduleIds: [], limit: 0 }),
            )
          ).field,
        ).toBe('limit');
      });

      it('enqueues one turn request per slot when several ticks race', async () => {
        const schedules = await Promise.all(
          ['a', 'b', 'c'].map((name) => createSchedule('gina', name, name, { cron: '0 * * * *' })),
        );
        const now = new Date(Date.now() + 2 * 3_600_000);
        const countRuns = async () =>
          (
            await suite.rows<{ count: number }>('SELECT count(*)::int AS count FROM switchyard.schedule_runs')
          )[0]?.count ?? 0;
        const before = await countRuns();
        const results = await Promise.all(
          [1, 2, 3].map(() => suite.controlPlane.scheduler.tick({ now, batchSize: 1 })),
        );
        // Other tests' schedules are due too: every enqueue the ticks report is one new ledger row.
        expect(results.reduce((sum, result) => sum + result.enqueued, 0)).toBe((await countRuns()) - before);
        const rows = await suite.rows<{ count: number }>(
          'SELECT count(*)::int AS count FROM switchyard.schedule_runs WHERE schedule_id = ANY($1::uuid[])',
          [schedules.map((schedule) => schedule.id)],
        );
        expect(rows[0]?.count).toBe(3);
        const jobs = await suite.rows<{ count: number }>(
          "SELECT count(*)::int AS count FROM pgboss.job WHERE name = 'switchyard.turn-requests.gina'",
        );
        expect(jobs[0]?.count).toBe(3);
      });

      it('ticks on a timer once started, until stopped', async () => {
        const runAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000);
        const schedule = await createSchedule('timer', 'soon', 'Soon.', { runAt: runAt.toISOString() });
        suite.controlPlane.scheduler.start({ intervalMs: 100 });
        const rows = await until(
          'the one-shot to be enqueued',
          async () =>
            await suite.rows<{ slot: Date; enqueued_at: Date }>(
              'SELECT slot, enqueued_at FROM switchyard.schedule_runs WHERE schedule_id = $1',
              [schedule.id],
            ),
          (value) => value.length > 0,
        );
        await suite.controlPlane.scheduler.stop();
        expect(rows).toHaveLength(1);
        expect(rows[0]?.slot.toISOString()).toBe(runAt.toISOString());
        expect(rows[0]?.enqueued_at.getTime()).toBeGreaterThanOrEqual(runAt.getTime());
      });

      it('fires a one-shot once and marks it finished', async () => {
        const runAt = new Date(Date.now() + 10 * MINUTE);
        const schedule = await createSchedule('hank', 'once', 'Once.', { runAt: runAt.toISOString() });
        const result = await suite.controlPlane.scheduler.tick({
          now: new Date(runAt.getTime() + 5 * MINUTE),
        });
        expect(result.enqueued).toBeGreaterThanOrEqual(1);
        const [listed] = await suite.controlPlane.schedules.listSchedules({
          agentId: 'hank',
          includeInactive: true,
        });
        expect(listed).toMatchObject({ id: schedule.id, status: 'finished', nextFireTimes: [] });
        await suite.controlPlane.scheduler.tick({ now: new Date(runAt.getTime() + 60 * MINUTE) });
        const rows = await suite.rows('SELECT 1 FROM switchyard.schedule_runs WHERE schedule_id = $1', [
          schedule.id,
        ]);
        expect(rows).toHaveLength(1);
      });
    });

    describe('turn requests', () => {
      it('delivers each turn request to the agent and completes its ledger row once, retrying a failure', async () => {
        const schedule = await createSchedule('iris', 'retry', 'Work.', {
          runAt: new Date(Date.now() + MINUTE).toISOString(),
        });
        await suite.controlPlane.scheduler.tick({ now: new Date(Date.now() + 2 * MINUTE) });
        const seen: Array<{ request: TurnRequest; attempt: number }> = [];
        await suite.controlPlane.turnRequests.work(
          async (request, context) => {
            seen.push({ request, attempt: context.attempt });
            if (context.attempt === 1) throw new Error('model unavailable');
          },
          { agentId: 'iris' },
        );
        const rows = await until(
          'the run to complete',
          async () =>
            await suite.rows<{ status: string; attempts: number; idempotency_key: string }>(
              'SELECT status, attempts, idempotency_key FROM switchyard.schedule_runs WHERE schedule_id = $1',
              [schedule.id],
            ),
          (value) => value[0]?.status === 'completed',
        );
        expect(rows).toEqual([
          { status: 'completed', attempts: 2, idempotency_key: expect.stringMatching(/^schedule:/) },
        ]);
        expect(seen.map((entry) => entry.attempt)).toEqual([1, 2]);
        expect(seen[0]?.request).toMatchObject({ agentId: 'iris', prompt: 'Work.', scheduleId: schedule.id });
      });

      it('refuses to consume without an agent', async () => {
        expect((await inputError(suite.controlPlane.turnRequests.work(async () => {}))).field).toBe(
          'agentId',
        );
      });
    });

    describe('jobs, workflows and task results', () => {
      it('stores one job per idempotency key and one result per task', async () => {
        const job = {
          agentId: 'jill',
          kind: 'agent-turn',
          payload: { prompt: 'hi' },
          idempotencyKey: 'job-1',
        };
        const first = await suite.controlPlane.work.createBackgroundJob(job);
        const again = await suite.controlPlane.work.createBackgroundJob(job);
        expect(first.created).toBe(true);
        expect(again).toEqual({ id: first.id, created: false });

        const workflow = {
          agentId: 'jill',
          name: 'research',
          definition: { steps: 2 },
          tasks: [
            { taskId: 'search', input: {} },
            { taskId: 'write', input: {} },
          ],
          idempotencyKey: 'wf-1',
        };
        const created = await suite.controlPlane.work.createWorkflow(workflow);
        expect((await suite.controlPlane.work.createWorkflow(workflow)).created).toBe(false);
        const store = { workflowId: created.id, taskId: 'search', result: { links: 3 } };
        expect(await suite.controlPlane.work.storeTaskResult(store)).toEqual({ stored: true });
        expect(await suite.controlPlane.work.storeTaskResult({ ...store, result: { links: 4 } })).toEqual({
          stored: false,
        });
        const rows = await suite.rows<{ result: unknown }>(
          'SELECT result FROM switchyard.task_results WHERE workflow_id = $1',
          [created.id],
        );
        expect(rows).toEqual([{ result: { links: 3 } }]);
        expect(
          (await inputError(suite.controlPlane.work.storeTaskResult({ ...store, taskId: 'nope' }))).field,
        ).toBe('taskId');
      });

      it('rejects a NUL character in JSON and a huge payload before the write', async () => {
        const nul = await inputError(
          suite.controlPlane.work.createBackgroundJob({
            agentId: 'kim',
            kind: 'k',
            payload: { text: 'a\u0000b' },
            idempotencyKey: 'nul',
          }),
        );
        expect(nul).toMatchObject({ field: 'payload' });
        const huge = await inputError(
          suite.controlPlane.work.createBackgroundJob({
            agentId: 'kim',
            kind: 'k',
            payload: 'x'.repeat(2 * 1024 * 1024),
            idempotencyKey: 'huge',
          }),
        );
        expect(huge.message).toMatch(/2\.0 MiB of JSON, over the limit of 1\.0 MiB/);
        const rows = await suite.rows("SELECT 1 FROM switchyard.background_jobs WHERE agent_id = 'kim'");
        expect(rows).toEqual([]);
      });
    });

    describe('durability', () => {
      it('drains on close: a running handler finishes and its run is completed', async () => {
        const runAt = new Date(Date.now() + MINUTE);
        await createSchedule('zed', 'slow', 'Slow.', { runAt: runAt.toISOString() });
        let finished = false;
        const started = createGate();
        await suite.controlPlane.turnRequests.work(
          async () => {
            started.open();
            await new Promise((resolve) => setTimeout(resolve, 700));
            finished = true;
          },
          { agentId: 'zed' },
        );
        await suite.controlPlane.scheduler.tick({ now: new Date(runAt.getTime() + 1000) });
        await started.opened;
        await suite.controlPlane.close();
        expect(finished).toBe(true);
        await suite.reopen();
        const rows = await suite.rows<{ status: string }>(
          "SELECT status FROM switchyard.schedule_runs WHERE agent_id = 'zed'",
        );
        expect(rows).toEqual([{ status: 'completed' }]);
      });

      it('reopens the same database with its state and without re-applying migrations', async () => {
        const before = await suite.controlPlane.schedules.listSchedules({ agentId: 'ada' });
        expect(before.length).toBeGreaterThan(0);
        await suite.controlPlane.close();
        await suite.reopen();
        expect(
          (await suite.controlPlane.schedules.listSchedules({ agentId: 'ada' })).map((s) => s.id),
        ).toEqual(before.map((s) => s.id));
        const rows = await suite.rows('SELECT version FROM switchyard.migrations');
        expect(rows).toEqual(MIGRATIONS.map(({ version }) => ({ version })));
      });
    });
  });
}
