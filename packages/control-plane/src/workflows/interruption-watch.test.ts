import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../database/database';
import { openPgliteDatabase } from '../database/open-pglite-database';
import { runMigrations } from '../database/run-migrations';
import { InterruptionWatch } from './interruption-watch';

let dataDir: string;
let database: Database;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-watch-'));
  database = await openPgliteDatabase(dataDir);
});

afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function insertJob(status: string, attempts: number): Promise<string> {
  const id = randomUUID();
  await database.query(
    `INSERT INTO switchyard.background_jobs (id, agent_id, kind, payload, idempotency_key, status, attempts)
     VALUES ($1, 'agent', 'turn', '{}'::jsonb, $2, $3, $4)`,
    [id, `key-${id}`, status, attempts],
  );
  return id;
}

describe('interruption polling', () => {
  // Runs first: the database has no tables yet, so every poll fails.
  it('reports a failed poll to onError instead of swallowing it, and keeps polling', async () => {
    const errors: unknown[] = [];
    const watch = new InterruptionWatch(
      database,
      { kind: 'background-job', jobId: randomUUID() },
      1,
      10,
      (error) => errors.push(error),
    );
    try {
      await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(2), {
        timeout: 30_000,
        interval: 10,
      });
    } finally {
      watch.stop();
    }
    expect(String(errors[0])).toContain('background_jobs');
    expect(watch.signal.aborted).toBe(false);
  });

  it('aborts the signal when the job is cancelled, and when another attempt took it', async () => {
    await runMigrations(database);
    const cancelled = await insertJob('cancelled', 1);
    const superseded = await insertJob('running', 2);
    const running = await insertJob('running', 1);
    const errors: unknown[] = [];
    const watches = [cancelled, superseded, running].map(
      (jobId) =>
        new InterruptionWatch(database, { kind: 'background-job', jobId }, 1, 10, (error) =>
          errors.push(error),
        ),
    );
    const [onCancelled, onSuperseded, onRunning] = watches;
    try {
      await vi.waitFor(() => expect(onCancelled?.signal.aborted && onSuperseded?.signal.aborted).toBe(true), {
        timeout: 30_000,
        interval: 10,
      });
    } finally {
      for (const watch of watches) watch.stop();
    }
    expect(String(onCancelled?.signal.reason)).toContain('cancelled');
    expect(String(onSuperseded?.signal.reason)).toContain('attempt 1 was handed to another worker');
    expect(onRunning?.signal.aborted).toBe(false);
    expect(errors).toEqual([]);
  });
});
