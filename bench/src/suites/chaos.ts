// The durable-turns chaos suite (issue 41): a fleet of `switchyard serve` processes on a throw-away
// PostgreSQL cluster SIGKILLed again and again while they run workflow tasks, jobs, schedule fires and
// API turns whose calls append to a side-effect ledger; the driver (`@switchyard/chaos-driver`, the one
// apps/worker's chaos test runs small) reports what ran twice, what was asked twice and what was lost.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type ChaosRunResult, runChaos } from '@switchyard/chaos-driver';
import { openControlPlane } from '@switchyard/control-plane';
import { CLI_PATH } from '../daemon/serve-daemon';
import { startThrowawayPostgres } from '../daemon/throwaway-postgres';
import { heading, machineNow, report } from '../measure';

/** The kills a full run injects (`BENCH_CHAOS_KILLS` or `--chaos-kills=N` for fewer). */
export const CHAOS_KILLS = 1_000;

/** What the chaos suite measured. */
export interface ChaosResult {
  date: string;
  node: string;
  cores: number;
  load: [before: number, after: number];
  /** Processes in the fleet at once. */
  processes: number;
  /** Units kept running at once. */
  inFlight: number;
  /** The figures, or why the suite did not run. */
  figures: ChaosRunResult | { skipped: string };
}

/**
 * Runs the chaos suite with `kills` kills (default `CHAOS_KILLS`), or as many as `minutes` allow
 * (`BENCH_CHAOS_MINUTES`; the figures then say how many were injected).
 */
export async function chaos(options: { kills?: number; minutes?: number } = {}): Promise<ChaosResult> {
  const loadBefore = os.loadavg()[0] ?? Number.NaN;
  const processes = 3;
  const inFlight = 9;
  const kills = options.kills ?? CHAOS_KILLS;
  heading(`chaos: ${processes} serve processes on PostgreSQL, ${kills} SIGKILLs`);
  const postgres = await startThrowawayPostgres();
  if ('skipped' in postgres) {
    return { ...machineNow(loadBefore), processes, inFlight, figures: { skipped: postgres.skipped } };
  }
  const folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-chaos-'));
  try {
    const figures = await runChaos({
      cliPath: CLI_PATH,
      folder,
      database: { url: postgres.url },
      openControlPlane: (queues) =>
        openControlPlane({ databaseUrl: postgres.url, ...queues, environment: {} }),
      slots: processes,
      kills,
      ...(options.minutes === undefined ? {} : { killForMs: options.minutes * 60_000 }),
      inFlight,
      gapMs: [200, 1_000],
      settleMs: 300_000,
      log: (line) => process.stdout.write(`${line}\n`),
    });
    report('kills', String(figures.kills), `${figures.units} units, ${figures.seconds.toFixed(0)} s`);
    report('recorded calls run again', String(figures.recordedOutputRunAgain + figures.unrecordedRunAgain));
    report('model requests repeated for a recorded step', String(figures.repeatedRequests));
    report('in-doubt calls run again', String(figures.inDoubtRunAgain));
    report('units lost', String(figures.unitsLost));
    report(
      'kill to the resumed turn’s next step',
      `p50 ${figures.resume.p50Ms} ms, p99 ${figures.resume.p99Ms} ms`,
    );
    return { ...machineNow(loadBefore), processes, inFlight, figures };
  } finally {
    await postgres.stop();
    await rm(folder, { recursive: true, force: true });
  }
}
