import { testBackends } from '@switchyard/test-databases';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { startWorkflow, summaryTask, uniqueTurnId } from '../__fixtures__/work-fixtures';
import { type ControlPlane, openControlPlane, RateLimitedError } from '../index';

/** The `RateLimitedError` that `promise` rejects with; throws when it fulfils or rejects otherwise. */
async function rateLimited(promise: Promise<unknown>): Promise<RateLimitedError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!RateLimitedError.isInstance(error))
    throw new Error(`expected a RateLimitedError, got ${String(error)}`);
  return error;
}

const LIMITS = {
  schedulesPerHour: 2,
  scheduleFiresPerHour: 1,
  workflowsPerHour: 1,
  backgroundJobsPerHour: 1,
};

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: agent budgets`, () => {
    // Only `ada` has limits: every other agent starts as much as it likes.
    const suite = useControlPlane(
      backend,
      { startLimits: (agentId) => (agentId === 'ada' ? LIMITS : undefined) },
      120_000,
    );
    const budgets = () => suite.controlPlane.budgets;

    it("sums an agent's tokens over the last day, not older minutes nor other agents", async () => {
      await budgets().recordTokens('ada', 120);
      await budgets().recordTokens('ada', 30);
      await budgets().recordTokens('bob', 999);
      await suite.rows(
        `INSERT INTO switchyard.agent_token_usage (agent_id, minute, tokens)
         VALUES ('ada', date_trunc('minute', now()) - interval '24 hours', 5000)`,
      );
      expect(await budgets().tokensLastDay('ada')).toBe(150);
      expect((await budgets().usage('ada')).tokensLastDay).toBe(150);
      // The minute older than a day and an hour is pruned as the next one is added.
      await suite.rows(
        `INSERT INTO switchyard.agent_token_usage (agent_id, minute, tokens)
         VALUES ('ada', date_trunc('minute', now()) - interval '26 hours', 7)`,
      );
      await budgets().recordTokens('ada', 1);
      const old = await suite.rows(
        "SELECT 1 FROM switchyard.agent_token_usage WHERE agent_id = 'ada' AND minute < now() - interval '25 hours'",
      );
      expect(old).toHaveLength(0);
    });

    it('stores every token of many responses recorded at once, each call resolving once its tokens are stored', async () => {
      const written = await Promise.all(
        Array.from({ length: 60 }, async (_, index) => {
          await budgets().recordTokens('carol', index + 1);
          // Resolved: its own tokens are in the table, whichever statement carried them.
          const [row] = await suite.rows<{ tokens: string }>(
            "SELECT sum(tokens)::text AS tokens FROM switchyard.agent_token_usage WHERE agent_id = 'carol'",
          );
          return Number(row?.tokens);
        }),
      );
      expect(Math.min(...written)).toBeGreaterThanOrEqual(1);
      expect(await budgets().tokensLastDay('carol')).toBe((60 * 61) / 2);
    });

    it('lets checks share a reading under way, each counting what this process recorded since', async () => {
      await budgets().recordTokens('dora', 100);
      await suite.rows(
        `INSERT INTO switchyard.agent_token_usage (agent_id, minute, tokens)
         VALUES ('dora', date_trunc('minute', now()) - interval '1 hour', 40)`,
      );
      const shared = () => budgets().tokensLastDay('dora', { shareUnderWay: true });
      expect(await Promise.all([shared(), shared(), budgets().tokensLastDay('dora'), shared()])).toEqual([
        140, 140, 140, 140,
      ]);
      // Tokens recorded while a reading is under way count for every check sharing it: never less
      // than this process spent (twice, when the reading itself already saw them: the safe side).
      const first = shared();
      const recorded = budgets().recordTokens('dora', 5);
      const second = shared();
      await recorded;
      expect([145, 150]).toContain(await second);
      expect([145, 150]).toContain(await first);
      expect(await shared()).toBe(145);
    });

    it('refuses a schedule past schedulesPerHour with its reason, storing nothing, and counts a repeated create once', async () => {
      const create = (name: string, idempotencyKey?: string) =>
        suite.controlPlane.schedules.createSchedule({
          agentId: 'ada',
          name,
          prompt: 'p',
          cron: '0 9 * * *',
          timeZone: 'UTC',
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        });
      const first = await create('one', 'key-one');
      // Its repeat is answered from its key: not a new start.
      expect((await create('one', 'key-one')).id).toBe(first.id);
      await create('two');
      const refused = await rateLimited(create('three'));
      expect(refused.limit).toBe('schedulesPerHour');
      expect(refused.message).toMatch(
        /limit of 2 schedules created per hour \(schedulesPerHour\): 2 in the last hour/,
      );
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(3600);
      const stored = await suite.rows(
        "SELECT name FROM switchyard.schedules WHERE agent_id = 'ada' ORDER BY name",
      );
      expect(stored).toEqual([{ name: 'one' }, { name: 'two' }]);
      // Another agent has no limit.
      for (const name of ['a', 'b', 'c']) {
        await suite.controlPlane.schedules.createSchedule({
          agentId: 'bob',
          name,
          prompt: 'p',
          cron: '0 9 * * *',
        });
      }
      expect((await budgets().usage('ada')).startedLastHour.schedule).toBe(2);
    });

    it('refuses workflows and background jobs past their hourly limits, storing nothing', async () => {
      await startWorkflow(suite.controlPlane, 'ada', 'first', [summaryTask('only')]);
      const workflow = await rateLimited(
        startWorkflow(suite.controlPlane, 'ada', 'second', [summaryTask('only')]),
      );
      expect(workflow.limit).toBe('workflowsPerHour');
      await suite.controlPlane.backgroundJobs.startBackgroundJob({ agentId: 'ada', prompt: 'one' });
      const job = await rateLimited(
        suite.controlPlane.backgroundJobs.startBackgroundJob({ agentId: 'ada', prompt: 'two' }),
      );
      expect(job.limit).toBe('backgroundJobsPerHour');
      expect(job.message).toMatch(/background jobs started per hour/);
      const [counts] = await suite.rows<{ workflows: number; jobs: number }>(
        `SELECT (SELECT count(*) FROM switchyard.workflows WHERE agent_id = 'ada')::int AS workflows,
                (SELECT count(*) FROM switchyard.background_jobs WHERE agent_id = 'ada')::int AS jobs`,
      );
      expect(counts).toEqual({ workflows: 1, jobs: 1 });
    });

    it('delays a schedule fire past scheduleFiresPerHour instead of firing it', async () => {
      const past = new Date(Date.now() + 60_000);
      for (const name of ['fire-a', 'fire-b']) {
        await suite.controlPlane.schedules.createSchedule({
          agentId: 'cy',
          name,
          prompt: 'p',
          runAt: past.toISOString(),
        });
      }
      // cy has no limit: both fire. ada's two schedules (above) are daily; make them due now.
      await suite.rows(
        "UPDATE switchyard.schedules SET next_fire_at = now() - interval '1 second' WHERE agent_id = 'ada'",
      );
      const tick = await suite.controlPlane.scheduler.tick({ now: new Date() });
      expect(tick.enqueued).toBe(1);
      expect(tick.delayed).toBe(1);
      const [waiting] = await suite.rows<{ later: boolean }>(
        "SELECT bool_and(next_fire_at > now()) AS later FROM switchyard.schedules WHERE agent_id = 'ada'",
      );
      expect(waiting?.later).toBe(true);
      expect((await budgets().usage('ada')).startedLastHour['schedule-fire']).toBe(1);
    });

    it('admits turns up to turnsAtOnce, marks the others delayed, and admits one when a slot frees', async () => {
      const ids = [uniqueTurnId('a'), uniqueTurnId('b'), uniqueTurnId('c')];
      for (const id of ids) {
        await suite.controlPlane.turns.recordStart({
          id,
          agentId: 'dee',
          source: 'api',
          prompt: 'p',
          workerId: 'w',
        });
      }
      const admit = (turnId: string) => budgets().admitTurn({ turnId, agentId: 'dee', turnsAtOnce: 2 });
      expect(await admit(ids[0] as string)).toEqual({ admitted: true, running: 1 });
      expect(await admit(ids[1] as string)).toEqual({ admitted: true, running: 2 });
      expect(await admit(ids[2] as string)).toEqual({ admitted: false, running: 2 });
      // A turn that has its slot keeps it.
      expect((await admit(ids[0] as string)).admitted).toBe(true);
      expect((await suite.controlPlane.turns.get(ids[2] as string))?.limitedBy).toEqual(['turnsAtOnce']);
      expect(await budgets().usage('dee')).toMatchObject({ runningTurns: 2, waitingTurns: 1 });
      await suite.controlPlane.turns.recordEnd({
        id: ids[0] as string,
        status: 'budget-exceeded',
        output: 'the last words',
        usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, reasoningTokens: 0, totalTokens: 2 },
        iterations: 1,
        error: 'the turn spent 2 tokens of its 2 (tokensPerTurn)',
        limitedBy: 'tokensPerTurn',
      });
      const ended = await suite.controlPlane.turns.get(ids[0] as string);
      expect(ended).toMatchObject({
        status: 'budget-exceeded',
        output: 'the last words',
        limitedBy: ['tokensPerTurn'],
      });
      expect(await admit(ids[2] as string)).toEqual({ admitted: true, running: 2 });
      expect((await suite.controlPlane.turns.get(ids[2] as string))?.limitedBy).toEqual(['turnsAtOnce']);
    });
  });
}

// Two control planes need a server both can open: PGlite is one process's.
const postgres = testBackends.find((backend) => backend.title !== 'embedded PGlite');
describe.runIf(postgres?.available === true)(`${postgres?.title}: agent budgets held by a fleet`, () => {
  const suite = useControlPlane(postgres as (typeof testBackends)[number], {}, 120_000);
  it('holds turnsAtOnce and an hourly limit across two control planes on one database', async () => {
    const other: ControlPlane = await openControlPlane({
      ...suite.database.options,
      environment: {},
      startLimits: () => ({ backgroundJobsPerHour: 3 }),
    });
    try {
      const ids = Array.from({ length: 6 }, (_, index) => uniqueTurnId(`fleet${index}`));
      for (const id of ids) {
        await suite.controlPlane.turns.recordStart({
          id,
          agentId: 'eve',
          source: 'api',
          prompt: 'p',
          workerId: 'w',
        });
      }
      const answers = await Promise.all(
        ids.map((turnId, index) =>
          (index % 2 === 0 ? suite.controlPlane : other).budgets.admitTurn({
            turnId,
            agentId: 'eve',
            turnsAtOnce: 2,
          }),
        ),
      );
      expect(answers.filter((answer) => answer.admitted)).toHaveLength(2);
      const starts = await Promise.allSettled(
        Array.from({ length: 6 }, (_, index) =>
          other.backgroundJobs.startBackgroundJob({ agentId: 'eve', prompt: `job ${index}` }),
        ),
      );
      expect(starts.filter((start) => start.status === 'fulfilled')).toHaveLength(3);
      for (const start of starts) {
        if (start.status === 'rejected') expect(RateLimitedError.isInstance(start.reason)).toBe(true);
      }
    } finally {
      await other.close();
    }
  });
});
