// 1,000 due schedule slots processed by the scheduler on embedded PGlite and on a PostgreSQL server:
// due-to-enqueue latency (median, p99) and throughput, against a baseline measured in the same run
// (the same number of bare INSERT ... ON CONFLICT DO NOTHING statements: the ledger write alone).

import { ms, percentile, report } from '@switchyard/bench-kit';
import type { ControlPlane } from '../src/index';
import { queryControlPlane } from '../src/testing';
import { onEachBackend } from './bench-databases';

const SLOTS = 1000;
const AGENTS = 10;

async function benchmark(label: string, controlPlane: ControlPlane): Promise<void> {
  const runAt = new Date(Date.now() + 3_600_000).toISOString();
  for (let index = 0; index < SLOTS; index += 1) {
    await controlPlane.schedules.createSchedule({
      agentId: `bench-${index % AGENTS}`,
      name: `slot-${index}`,
      prompt: `Due slot ${index}.`,
      runAt,
    });
  }
  // Baseline: the ledger write alone, one statement per slot.
  await queryControlPlane(
    controlPlane,
    'CREATE TEMP TABLE IF NOT EXISTS bench_baseline (key text PRIMARY KEY, at timestamptz)',
  );
  const baselineStart = performance.now();
  for (let index = 0; index < SLOTS; index += 1) {
    await queryControlPlane(
      controlPlane,
      'INSERT INTO bench_baseline (key, at) VALUES ($1, clock_timestamp()) ON CONFLICT DO NOTHING',
      [`slot-${index}`],
    );
  }
  const baselineMs = performance.now() - baselineStart;

  // Every slot falls due now; the scheduler then processes them (ledger row + queue job + next fire).
  await queryControlPlane(
    controlPlane,
    "UPDATE switchyard.schedules SET next_fire_at = clock_timestamp() WHERE status = 'active'",
  );
  const start = performance.now();
  const result = await controlPlane.scheduler.tick();
  const elapsedMs = performance.now() - start;
  if (result.enqueued !== SLOTS) throw new Error(`expected ${SLOTS} enqueued, got ${result.enqueued}`);
  const { rows } = await queryControlPlane<{ latency: number }>(
    controlPlane,
    'SELECT extract(epoch FROM (enqueued_at - slot)) * 1000 AS latency FROM switchyard.schedule_runs',
  );
  const { rows: jobs } = await queryControlPlane<{ count: number }>(
    controlPlane,
    "SELECT count(*)::int AS count FROM pgboss.job WHERE name LIKE 'switchyard.turn-requests.bench-%'",
  );
  if (jobs[0]?.count !== SLOTS) throw new Error(`expected ${SLOTS} queue jobs, got ${jobs[0]?.count}`);
  const latencies = rows.map((row) => Number(row.latency)).sort((a, b) => a - b);
  const throughput = SLOTS / (elapsedMs / 1000);
  const baselineThroughput = SLOTS / (baselineMs / 1000);
  report(`${label}: ${SLOTS} due slots, one tick`, ms(elapsedMs));
  report('  due-to-enqueue latency, median', ms(percentile(latencies, 0.5)));
  report('  due-to-enqueue latency, p99', ms(percentile(latencies, 0.99)));
  report(
    '  throughput',
    `${throughput.toFixed(0)} slots/s`,
    `${(throughput / baselineThroughput).toFixed(2)}x bare ledger INSERTs (${baselineThroughput.toFixed(0)}/s)`,
  );
}

await onEachBackend({ schedules: { maxSchedulesPerAgent: SLOTS } }, benchmark);
