import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlane } from '@switchyard/control-plane';
import type { ChaosFleet } from './chaos-fleet';
import type { ChaosModel } from './chaos-model';
import { CHAOS_QUEUE_POLICY, type ChaosQueuePolicy } from './chaos-settings';
import type { ChaosUnits } from './chaos-units';

/**
 * On PGlite, how long a process started again to let a unit left unended be delivered again runs
 * before the database is read once more: the expiry's maintenance pass (30 s after start) and a retry
 * delay (5 s), with a margin. Each read stops the process (one process may open the database).
 */
const PGLITE_REDELIVERY_MS = 45_000;

/** What `settle` needs of the run. */
export interface SettleParts {
  units: ChaosUnits;
  model: ChaosModel;
  fleet: ChaosFleet;
  /** The driver's own control plane on PostgreSQL; undefined on PGlite (read with the process stopped). */
  controlPlane: ControlPlane | undefined;
  /** Opens a control plane on the database with the run's queue policy. */
  openControlPlane: (queues: ChaosQueuePolicy) => Promise<ControlPlane>;
  /** When to stop waiting (ms since the epoch): a safety net, not the expected time. */
  deadline: number;
  log?: (line: string) => void;
}

/**
 * Waits, until `deadline` at the most, for every started unit to end (a completed or failed record),
 * stops the fleet, and returns the units that did not end, each described in the log. On PostgreSQL the
 * records are polled beside the running fleet. On PGlite they can be read only with the process stopped:
 * it is awaited idle (every unit's final answer sent, no turn running), stopped and the records read;
 * a unit left unended is waited for by starting the process again for its queue to deliver the unit
 * anew, and reading again, until all ended or the deadline.
 */
export async function settle(parts: SettleParts): Promise<string[]> {
  const { units, fleet, controlPlane, deadline } = parts;
  let reported = Date.now();
  const report = (waitingFor: () => string) => {
    if (Date.now() - reported < 10_000) return;
    reported = Date.now();
    parts.log?.(`chaos: waiting for ${waitingFor()}`);
  };
  if (controlPlane !== undefined) {
    for (;;) {
      const unended = await units.unended(controlPlane);
      if (unended.length === 0 || Date.now() > deadline) break;
      report(() => `units to end: ${unended.join(' ')}`);
      await sleep(500);
    }
    await fleet.terminate(30_000);
    return describeLost(parts, controlPlane);
  }
  for (;;) {
    while (Date.now() < deadline && !(await pgliteIdle(parts))) {
      report(
        () =>
          `the final answers of ${[...units.started.keys()].filter((unit) => !parts.model.finished.has(unit)).join(' ')} and no turn running`,
      );
      await sleep(500);
    }
    await fleet.terminate(30_000);
    const database = await parts.openControlPlane(CHAOS_QUEUE_POLICY);
    let unended: string[];
    try {
      unended = await units.unended(database);
      if (unended.length === 0 || Date.now() + PGLITE_REDELIVERY_MS > deadline) {
        return await describeLost(parts, database);
      }
    } finally {
      await database.close();
    }
    parts.log?.(
      `chaos: every final answer sent, but not ended: ${unended.join(' ')}; the process runs again for their queue to deliver them anew`,
    );
    fleet.restart();
    await fleet.ready();
    await sleep(PGLITE_REDELIVERY_MS);
  }
}

/** The started units that did not end, each described in the log with its turns and their log lines. */
async function describeLost(parts: SettleParts, database: ControlPlane): Promise<string[]> {
  const lost = await parts.units.unended(database);
  for (const line of await parts.units.describe(database, lost)) {
    parts.log?.(`chaos: lost ${line}`);
    const turnId = /turn (turn_\S+)/.exec(line)?.[1];
    if (turnId !== undefined)
      for (const logged of parts.fleet.linesWith(turnId)) parts.log?.(`chaos:   ${logged}`);
  }
  return lost;
}

async function pgliteIdle({ units, model, fleet }: SettleParts): Promise<boolean> {
  if ([...units.started.keys()].some((unit) => !model.finished.has(unit))) return false;
  const url = fleet.process(0).url;
  if (url === undefined) return false;
  try {
    const response = await fetch(`${url}/healthz`);
    const health = (await response.json()) as { runningTurns?: number };
    return health.runningTurns === 0;
  } catch {
    return false;
  }
}
