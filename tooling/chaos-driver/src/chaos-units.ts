import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';

/** The four kinds of unit a chaos run starts. */
export type ChaosUnitKind = 'api' | 'job' | 'fire' | 'task';

/** The prompt of unit `unit`. */
export function unitPrompt(unit: string): string {
  return `CHAOS ${unit}`;
}

const RESULT_SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

/**
 * Starts chaos units and says which have ended. Jobs, schedule fires and workflows (two tasks, the
 * second after the first) are stored through the control plane; API turns are posted to a process's
 * `POST /v1/turns` with the unit as `Idempotency-Key`, so a post cut by a kill is sent again to another
 * process without starting the turn twice.
 */
export class ChaosUnits {
  /** Every unit started (API turns once a post was answered 202), by name. */
  readonly started = new Map<string, ChaosUnitKind>();
  /** API turns whose every post failed (never started: not counted as lost). */
  readonly unposted: string[] = [];
  readonly #agentId: string;
  #count = 0;

  constructor(agentId: string) {
    this.#agentId = agentId;
  }

  /** Stores a unit of `kind` (not `api`); a fire is due `dueInMs` from now. Returns its units' names. */
  async store(
    controlPlane: ControlPlane,
    kind: Exclude<ChaosUnitKind, 'api'>,
    dueInMs = 1_000,
  ): Promise<string[]> {
    this.#count += 1;
    const agentId = this.#agentId;
    if (kind === 'job') {
      const unit = `job-${this.#count}`;
      await controlPlane.backgroundJobs.startBackgroundJob({ agentId, prompt: unitPrompt(unit) });
      return this.#mark([unit], kind);
    }
    if (kind === 'fire') {
      const unit = `fire-${this.#count}`;
      const runAt = new Date(Date.now() + dueInMs).toISOString();
      await controlPlane.schedules.createSchedule({ agentId, name: unit, prompt: unitPrompt(unit), runAt });
      return this.#mark([unit], kind);
    }
    const [first, second] = [`task-${this.#count}a`, `task-${this.#count}b`];
    await controlPlane.workflows.startWorkflow({
      agentId,
      spec: {
        name: `chaos-${this.#count}`,
        tasks: [
          { id: 'a', prompt: unitPrompt(first), resultSchema: RESULT_SCHEMA },
          { id: 'b', prompt: unitPrompt(second), resultSchema: RESULT_SCHEMA, dependsOn: ['a'] },
        ],
      },
    });
    return this.#mark([first, second], kind);
  }

  /**
   * Posts an API turn to the first of `urls` that answers (each `() => url`, read when tried, since a
   * slot's process changes when it is killed); its name, or undefined when none did.
   */
  async post(urls: ReadonlyArray<() => string | undefined>): Promise<string | undefined> {
    this.#count += 1;
    const unit = `api-${this.#count}`;
    // A process being started again (after a kill) is waited for: up to 30 s in all.
    const deadline = Date.now() + 30_000;
    for (let index = 0; Date.now() < deadline; index += 1) {
      const base = urls[index % urls.length]?.();
      if (base === undefined) {
        await sleep(100);
        continue;
      }
      try {
        if ((await postTurn(base, unit, this.#agentId)) === 202) return this.#mark([unit], 'api')[0];
      } catch {
        // Killed while it answered: the same key goes to the next one.
      }
    }
    this.unposted.push(unit);
    return undefined;
  }

  /** What the database says of each of `lost` (its unit's row and its turns), for a failure message. */
  async describe(controlPlane: ControlPlane, lost: readonly string[]): Promise<string[]> {
    const lines: string[] = [];
    for (const unit of lost) {
      const { rows } = await queryControlPlane<{ what: string }>(
        controlPlane,
        `SELECT 'turn ' || id || ' ' || source || ' attempt ' || coalesce(attempt::text, '-') || ' ' || status ||
                ' on ' || worker_id || ', resumed ' || resumed_count || ' times, last heartbeat ' ||
                to_char(heartbeat_at, 'HH24:MI:SS.MS') || ', ended ' || coalesce(to_char(ended_at, 'HH24:MI:SS.MS'), '-') ||
                coalesce(': ' || left(error, 160), '') AS what
           FROM switchyard.turns WHERE agent_id = $1 AND prompt = $2
         UNION ALL
         SELECT 'schedule run ' || r.status || ', attempts ' || r.attempts || coalesce(': ' || left(r.error, 160), '')
           FROM switchyard.schedules s JOIN switchyard.schedule_runs r ON r.schedule_id = s.id
          WHERE s.agent_id = $1 AND s.prompt = $2
         UNION ALL
         SELECT 'job ' || status FROM switchyard.background_jobs WHERE agent_id = $1 AND payload->>'prompt' = $2
         UNION ALL
         SELECT 'task ' || t.status FROM switchyard.workflow_tasks t JOIN switchyard.workflows w ON w.id = t.workflow_id
          WHERE w.agent_id = $1 AND t.prompt = $2`,
        [this.#agentId, unitPrompt(unit)],
      );
      lines.push(`${unit}: ${rows.map((row) => row.what).join('; ') || 'nothing recorded'}`);
    }
    return lines;
  }

  /** The started units that have not ended: no completed or failed record yet. */
  async unended(controlPlane: ControlPlane): Promise<string[]> {
    const ended = await this.ended(controlPlane);
    return [...this.started.keys()].filter((unit) => !ended.has(unit));
  }

  /** The units with a completed or failed record (an API turn: ended, not interrupted). */
  ended(controlPlane: ControlPlane): Promise<Set<string>> {
    return endedUnits(controlPlane, this.#agentId);
  }

  #mark(units: string[], kind: ChaosUnitKind): string[] {
    for (const unit of units) this.started.set(unit, kind);
    return units;
  }
}

/** Posts unit `unit`'s turn to `base` (its name as `Idempotency-Key`); the answer's status. */
async function postTurn(base: string, unit: string, agentId: string): Promise<number> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const response = await fetch(`${base}/v1/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': unit },
      body: JSON.stringify({ prompt: unitPrompt(unit), agent: agentId }),
      signal: controller.signal,
    });
    await response.arrayBuffer();
    return response.status;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The units of agent `agentId` that reached an end: a job, fire or task completed or failed (a
 * recorded failure is an end: a unit out of attempts), an API turn ended (not running, not
 * interrupted: an interrupted one is to be resumed).
 */
async function endedUnits(controlPlane: ControlPlane, agentId: string): Promise<Set<string>> {
  const { rows } = await queryControlPlane<{ prompt: string }>(
    controlPlane,
    `SELECT payload->>'prompt' AS prompt FROM switchyard.background_jobs
      WHERE agent_id = $1 AND status IN ('completed', 'failed', 'cancelled')
     UNION ALL
     SELECT s.prompt FROM switchyard.schedules s JOIN switchyard.schedule_runs r ON r.schedule_id = s.id
      WHERE s.agent_id = $1 AND r.status IN ('completed', 'failed')
     UNION ALL
     SELECT t.prompt FROM switchyard.workflow_tasks t JOIN switchyard.workflows w ON w.id = t.workflow_id
      WHERE w.agent_id = $1 AND t.status IN ('completed', 'failed')
     UNION ALL
     SELECT prompt FROM switchyard.turns
      WHERE agent_id = $1 AND source = 'api' AND status NOT IN ('running', 'interrupted')`,
    [agentId],
  );
  return new Set(rows.map((row) => row.prompt.replace(/^CHAOS /, '')));
}
