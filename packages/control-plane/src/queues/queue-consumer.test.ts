import { randomUUID } from 'node:crypto';
import { type TestDatabase, testBackends } from '@switchyard/test-databases';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../__fixtures__/gate';
import { until } from '../__fixtures__/until';
import type { Database } from '../database/database';
import { openPgliteDatabase } from '../database/open-pglite-database';
import { openPostgresDatabase } from '../database/open-postgres-database';
import { handBackDelaySeconds, QueueConsumer, type QueuePolicy, retriesLeftAfter } from './queue-consumer';

// The two queues' own tests cover delivery, retries and draining on close; this file covers what
// only the shared plumbing does: stop() with several workers, and the queue-creation cache.

const policy: QueuePolicy = {
  expireInSeconds: 60,
  retryLimit: 1,
  retryDelaySeconds: 7,
  retryBackoff: false,
  pollingIntervalSeconds: 0.5,
};

describe('the hand-back schedule of a unit whose worker died', () => {
  it('retries at once first, then after the delay, doubling with backoff', () => {
    const backoff = { ...policy, retryDelaySeconds: 5, retryBackoff: true };
    expect([1, 2, 3, 4].map((attempt) => handBackDelaySeconds(backoff, attempt))).toEqual([0, 5, 10, 20]);
    expect(handBackDelaySeconds(backoff, 40)).toBe(86_400);
    const flat = { ...backoff, retryBackoff: false };
    expect([1, 2, 3].map((attempt) => handBackDelaySeconds(flat, attempt))).toEqual([0, 5, 5]);
  });

  it('gives each new job the retries its unit has left, so 1 + retryLimit attempts in all', () => {
    const three = { ...policy, retryLimit: 3 };
    expect([1, 2, 3, 4].map((attempt) => retriesLeftAfter(three, attempt))).toEqual([2, 1, 0, 0]);
  });
});

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: the shared queue plumbing`, () => {
    let testDatabase: TestDatabase;
    let database: Database;
    let boss: PgBoss;

    /** A consumer of test queues named by `queueName`, on this suite's pg-boss and database unless given. */
    const testConsumer = (
      queueName: (agentId: string) => string,
      options: { policy?: QueuePolicy; defaultAgentId?: string; boss?: PgBoss; database?: Database } = {},
    ) =>
      new QueueConsumer<{ index: number }>(options.boss ?? boss, {
        database: options.database ?? database,
        queueName,
        contents: 'tests',
        policy: options.policy ?? policy,
        defaultAgentId: options.defaultAgentId,
      });

    beforeAll(async () => {
      testDatabase = await backend.create();
      const { options } = testDatabase;
      database =
        'databaseUrl' in options
          ? await openPostgresDatabase(options.databaseUrl)
          : await openPgliteDatabase(options.dataDir);
      boss = new PgBoss({ db: database, schema: 'pgboss', migrate: true, supervise: false, schedule: false });
      await boss.start();
    });

    afterAll(async () => {
      await boss?.stop({ graceful: false, wait: true });
      await database?.close();
      await testDatabase?.dispose();
    });

    it('stop() waits for the running delivery of every worker, and nothing is fetched afterwards', async () => {
      const name = (agentId: string) => `test.stop.${agentId}`;
      const consumer = testConsumer(name);
      const started: number[] = [];
      const finished: number[] = [];
      const gate = createGate();
      const deliver = async (job: PgBoss.Job<{ index: number }>) => {
        started.push(job.data.index);
        await gate.opened;
        finished.push(job.data.index);
      };
      const workers = [
        await consumer.startWorker('ada', deliver),
        await consumer.startWorker('ada', deliver),
      ];
      expect(new Set(workers).size).toBe(2);
      await consumer.insert(database, [
        { id: randomUUID(), agentId: 'ada', data: { index: 1 } },
        { id: randomUUID(), agentId: 'ada', data: { index: 2 } },
      ]);
      // Both workers hold a job: each fetches one at a time, so neither waits for the other.
      await until(
        'both workers to start a delivery',
        async () => started.length,
        (count) => count === 2,
      );
      expect(started.toSorted()).toEqual([1, 2]);

      const stopping = consumer.stop();
      // The gate opens only after stop() was called: if stop() did not wait, it would settle first.
      setTimeout(gate.open, 300);
      await stopping;
      expect(finished.toSorted()).toEqual([1, 2]);

      const late = randomUUID();
      await consumer.insert(database, [{ id: late, agentId: 'ada', data: { index: 3 } }]);
      // Several polling intervals pass with the job waiting and no worker taking it.
      await new Promise((resolve) => setTimeout(resolve, 4 * policy.pollingIntervalSeconds * 1000));
      expect(started).toHaveLength(2);
      expect((await boss.getJobById(name('ada'), late))?.state).toBe('created');
    });

    it('fetches the next job at once after a delivery, not a polling interval later', async () => {
      const name = (agentId: string) => `test.next.${agentId}`;
      // An interval far longer than the bound below: a worker that waited it between jobs fails.
      const consumer = testConsumer(name, { policy: { ...policy, pollingIntervalSeconds: 60 } });
      await consumer.ensureQueue('fay');
      await consumer.insert(
        database,
        [1, 2, 3].map((index) => ({ id: randomUUID(), agentId: 'fay', data: { index } })),
      );
      const delivered: number[] = [];
      await consumer.startWorker('fay', async (job) => {
        delivered.push(job.data.index);
      });
      try {
        await until(
          'one worker to take three waiting jobs one after another',
          async () => delivered.length,
          (count) => count === 3,
          20_000,
        );
        expect(delivered.toSorted()).toEqual([1, 2, 3]);
      } finally {
        await consumer.stop();
      }
    });

    it('creates each queue once with the policy, and tries again after a failed creation', async () => {
      let calls = 0;
      // pg-boss refuses an empty queue name: the first creation fails, later ones get a real name.
      const consumer = testConsumer((agentId) => (calls++ === 0 ? '' : `test.create.${agentId}`));
      await expect(consumer.ensureQueue('bea')).rejects.toThrow(/Name is required/);
      const creating = consumer.ensureQueue('bea');
      expect(consumer.ensureQueue('bea')).toBe(creating);
      await creating;
      expect(await boss.getQueue('test.create.bea')).toMatchObject({
        name: 'test.create.bea',
        policy: 'standard',
        retryLimit: 1,
        retryDelay: 7,
        retryBackoff: false,
        expireInSeconds: 60,
      });
      expect(calls).toBe(2);
    });

    it("applies a consumer's policy to a queue another process created, and cancels a held job for good", async () => {
      const name = (agentId: string) => `test.policy.${agentId}`;
      const producer = testConsumer(name);
      await producer.ensureQueue('eve');
      const consumer = testConsumer(name, {
        policy: { ...policy, expireInSeconds: 123, retryLimit: 4, retryDelaySeconds: 2, retryBackoff: true },
      });
      const held: string[] = [];
      const gate = createGate();
      await consumer.startWorker('eve', async (job) => {
        held.push(job.id);
        await gate.opened;
      });
      expect(await boss.getQueue(name('eve'))).toMatchObject({
        expireInSeconds: 123,
        retryLimit: 4,
        retryDelay: 2,
        retryBackoff: true,
      });
      const first = randomUUID();
      const second = randomUUID();
      await consumer.insert(database, [{ id: first, agentId: 'eve', data: { index: 1 } }]);
      await until(
        'the held delivery',
        async () => held.length,
        (count) => count === 1,
      );
      // Handed back: the held job is cancelled and a new one, delayed and with fewer retries, carries the unit.
      await database.transaction(async (transaction) => {
        await consumer.cancel(transaction, 'eve', first);
        await consumer.insert(transaction, [
          { id: second, agentId: 'eve', data: { index: 1 }, startAfterSeconds: 60, retryLimit: 1 },
        ]);
      });
      gate.open();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The late completion of the held delivery changed nothing; the new job waits for its time.
      expect((await boss.getJobById(name('eve'), first))?.state).toBe('cancelled');
      const next = await boss.getJobById(name('eve'), second);
      expect(next).toMatchObject({ state: 'created', retryLimit: 1 });
      // pg-boss reads the expiry back as numeric text.
      expect(Number(next?.expireInSeconds)).toBe(123);
      expect((next?.startAfter.getTime() ?? 0) - Date.now()).toBeGreaterThan(50_000);
      expect(held).toEqual([first]);
      await consumer.stop();
    });

    it('names the field when no agent is given and there is no default', () => {
      const consumer = testConsumer((agentId) => `test.agent.${agentId}`, { defaultAgentId: 'cid' });
      expect(consumer.agentFor(undefined)).toBe('cid');
      expect(consumer.agentFor('dan')).toBe('dan');
      expect(() => consumer.agentFor('no spaces')).toThrow(/^agentId: must match/);
      const orphan = testConsumer((agentId) => `test.agent.${agentId}`);
      expect(() => orphan.agentFor(undefined)).toThrow(/^agentId: name the agent whose tests to consume$/);
    });

    it('creates queues from several consumers at once without failing (pg-boss create_queue deadlocks)', async () => {
      // On PostgreSQL two more connection pools stand in for two more processes starting on the same
      // server; embedded PGlite is one process's, so its consumers share the one database.
      const { options } = testDatabase;
      const others = await Promise.all(
        [0, 1].map(async () => {
          if (!('databaseUrl' in options)) return { own: database, ownBoss: boss, shared: true };
          const own = await openPostgresDatabase(options.databaseUrl);
          const ownBoss = new PgBoss({
            db: own,
            schema: 'pgboss',
            migrate: false,
            supervise: false,
            schedule: false,
          });
          await ownBoss.start();
          return { own, ownBoss, shared: false };
        }),
      );
      try {
        const consumers = [{ own: database, ownBoss: boss }, ...others].map(({ own, ownBoss }) =>
          testConsumer((agentId) => `test.race.${agentId}`, { boss: ownBoss, database: own }),
        );
        // Every process creates the same twelve agents' queues, in different orders.
        const agents = Array.from({ length: 12 }, (_, index) => `agent${index}`);
        await Promise.all(
          consumers.flatMap((consumer, position) =>
            (position % 2 === 0 ? agents : [...agents].reverse()).map((agent) => consumer.ensureQueue(agent)),
          ),
        );
        const queues = (await boss.getQueues()).filter((queue) => queue.name.startsWith('test.race.'));
        expect(queues.map((queue) => queue.name).sort()).toEqual(
          agents.map((agent) => `test.race.${agent}`).sort(),
        );
      } finally {
        for (const { own, ownBoss, shared } of others) {
          if (shared) continue;
          await ownBoss.stop({ graceful: false, wait: true });
          await own.close();
        }
      }
    });
  });
}
