import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  createPostgresDatabase,
  postgresTitle,
  postgresUrl,
  type TestDatabase,
} from '@switchyard/test-databases';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../database/migrations';
import { type ControlPlane, openControlPlane } from '../index';
import { queryControlPlane } from '../testing';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageRoot = path.resolve(here, '../..');
const consumerScript = path.join(here, '../__fixtures__/turn-consumer.ts');
const AGENT = 'crash-agent';
const SCHEDULES = 4;
const TICKS = 5;

interface ConsumerEvent {
  event: 'ready' | 'start' | 'done' | 'error';
  runId?: string;
  attempt?: number;
  pid?: number;
  message?: string;
}

class Consumer {
  readonly child: ChildProcess;
  readonly events: ConsumerEvent[] = [];
  stderr = '';
  readonly #waiters: Array<{
    match: (event: ConsumerEvent) => boolean;
    resolve: (event: ConsumerEvent) => void;
  }> = [];
  readonly exited: Promise<NodeJS.Signals | number | null>;

  /** `firstHoldMs`: how long the first job is held (long for the process the test kills mid-job). */
  constructor(databaseUrl: string, firstHoldMs = 400) {
    const args = ['--import', 'tsx', consumerScript, databaseUrl, AGENT, '400', String(firstHoldMs)];
    this.child = spawn(process.execPath, args, {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      let event: ConsumerEvent;
      try {
        event = JSON.parse(line) as ConsumerEvent;
      } catch {
        return;
      }
      this.events.push(event);
      for (const waiter of [...this.#waiters]) {
        if (waiter.match(event)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    });
  }

  next(match: (event: ConsumerEvent) => boolean, timeoutMs = 90_000): Promise<ConsumerEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `consumer event timed out; events so far: ${JSON.stringify(this.events)}; stderr: ${this.stderr}`,
            ),
          ),
        timeoutMs,
      );
      this.#waiters.push({
        match,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}

describe.runIf(postgresUrl !== null)(`${postgresTitle}: crash recovery with real processes`, () => {
  let database: TestDatabase;
  let controlPlane: ControlPlane | undefined;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase(postgresUrl ?? '');
  });

  afterAll(async () => {
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    await controlPlane?.close();
    await database?.dispose();
  });

  it('completes every unit exactly once in the ledger after a consumer is killed mid-job', async () => {
    const { databaseUrl } = database.options as { databaseUrl: string };
    // Two processes start on an empty database at once: the migrations must serialise.
    // The first process holds its first job long enough that the kill surely lands mid-job, even on a
    // loaded machine where reading its 'start' line takes a while.
    const first = new Consumer(databaseUrl, 120_000);
    const second = new Consumer(databaseUrl);
    consumers.push(first, second);
    await Promise.all([
      first.next((event) => event.event === 'ready'),
      second.next((event) => event.event === 'ready'),
    ]);

    controlPlane = await openControlPlane({
      databaseUrl,
      environment: {},
      schedules: { minimumIntervalSeconds: 60 },
      turnRequests: { expireInSeconds: 2, retryLimit: 5, retryDelaySeconds: 0 },
    });
    const { rows: migrations } = await queryControlPlane(
      controlPlane,
      'SELECT version FROM switchyard.migrations',
    );
    expect(migrations).toEqual(MIGRATIONS.map(({ version }) => ({ version })));

    const schedules = [];
    for (let index = 0; index < SCHEDULES; index += 1) {
      schedules.push(
        await controlPlane.schedules.createSchedule({
          agentId: AGENT,
          name: `minutely-${index}`,
          prompt: `unit ${index}`,
          cron: '* * * * *',
        }),
      );
    }
    // The schedules' first slots differ by a minute when their creation crossed a minute's boundary
    // (a loaded machine makes that likely): ticking from the latest of them fires TICKS slots of
    // each, as a tick fires a schedule's latest due slot (the earlier one's first slot is skipped).
    const firstSlot = Math.max(...schedules.map((schedule) => Date.parse(schedule.nextFireTimes[0] ?? '')));
    expect(Number.isFinite(firstSlot)).toBe(true);
    for (let tick = 0; tick < TICKS; tick += 1) {
      // Each simulated minute fires one slot per schedule; ticking it twice fires nothing more.
      const now = new Date(firstSlot + tick * 60_000);
      await controlPlane.scheduler.tick({ now });
      await controlPlane.scheduler.tick({ now });
    }
    const expected = SCHEDULES * TICKS;

    await first.next((event) => event.event === 'start');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    // The run the killed process was in the middle of: started, never done. (The first 'start' may
    // belong to a run it finished before the kill, so pick it only now that its events are final.)
    const finished = new Set(
      first.events.filter((event) => event.event === 'done').map((event) => event.runId),
    );
    const started = first.events.findLast((event) => event.event === 'start' && !finished.has(event.runId));
    expect(started).toBeDefined();
    const restarted = new Consumer(databaseUrl);
    consumers.push(restarted);

    const deadline = Date.now() + 90_000;
    let completed = 0;
    while (Date.now() < deadline) {
      const { rows } = await queryControlPlane<{ count: number }>(
        controlPlane,
        "SELECT count(*)::int AS count FROM switchyard.schedule_runs WHERE agent_id = $1 AND status = 'completed'",
        [AGENT],
      );
      completed = rows[0]?.count ?? 0;
      if (completed === expected) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const { rows: ledger } = await queryControlPlane<{
      slots: number;
      runs: number;
      duplicated: number;
      lost: number;
    }>(
      controlPlane,
      `SELECT count(DISTINCT (schedule_id, slot))::int AS slots, count(*)::int AS runs,
              (count(*) - count(DISTINCT (schedule_id, slot)))::int AS duplicated,
              count(*) FILTER (WHERE status <> 'completed')::int AS lost
       FROM switchyard.schedule_runs WHERE agent_id = $1`,
      [AGENT],
    );
    expect(ledger[0]).toEqual({ slots: expected, runs: expected, duplicated: 0, lost: 0 });

    // The killed job was delivered again (at-least-once) and completed by a surviving process.
    const { rows: killedRun } = await queryControlPlane<{ status: string; attempts: number }>(
      controlPlane,
      'SELECT status, attempts FROM switchyard.schedule_runs WHERE id = $1',
      [started?.runId],
    );
    expect(killedRun[0]?.status).toBe('completed');
    expect(killedRun[0]?.attempts).toBeGreaterThanOrEqual(2);
    // A consumer prints a run's `done` before the run's row reads completed, but this process can
    // read the row before it reads the line: wait for the lines (a deadline that is only a safety net).
    const doneEvents = () =>
      consumers.flatMap((consumer) => consumer.events.filter((event) => event.event === 'done'));
    const linesDeadline = Date.now() + 15_000;
    while (doneEvents().length < expected && Date.now() < linesDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const finishers = [second, restarted].flatMap((consumer) =>
      consumer.events.filter((event) => event.event === 'done' && event.runId === started?.runId),
    );
    expect(finishers).toHaveLength(1);
    expect(first.events.some((event) => event.event === 'done' && event.runId === started?.runId)).toBe(
      false,
    );

    // Every delivery that finished belongs to a distinct run: no unit ran to completion twice.
    const done = doneEvents();
    expect(new Set(done.map((event) => event.runId)).size).toBe(done.length);
    expect(done.length).toBe(expected);
    // The queue marks a job completed only after the run's ledger row is written and the handler
    // returned, so the last job may still read 'active' for a moment after the ledger is whole.
    let jobs: Array<{ state: string; count: number }> = [];
    const queueDeadline = Date.now() + 15_000;
    while (Date.now() < queueDeadline) {
      ({ rows: jobs } = await queryControlPlane<{ state: string; count: number }>(
        controlPlane,
        'SELECT state, count(*)::int AS count FROM pgboss.job WHERE name = $1 GROUP BY state',
        [`switchyard.turn-requests.${AGENT}`],
      ));
      if (jobs.length === 1 && jobs[0]?.state === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(jobs).toEqual([{ state: 'completed', count: expected }]);
  });
});
