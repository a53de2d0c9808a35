/** A schedule as the control plane reports it (the shape `@switchyard/tools-schedule` expects). */
export interface ScheduleRecord {
  /** The schedule's id (a UUID). */
  id: string;
  /** The agent that owns it; only that agent sees or cancels it. */
  agentId: string;
  /** A short name, unique among the agent's active schedules. */
  name: string;
  /** The prompt the agent's turn starts with when it fires. */
  prompt: string;
  /** `cron`: recurring; `once`: a one-shot time. */
  kind: 'cron' | 'once';
  /** The cron expression (5 fields), or null for a one-shot. */
  cron: string | null;
  /** The IANA zone the cron expression and the reported times are read in. */
  timeZone: string;
  /** A one-shot's time as local ISO 8601 with offset, or null for a cron schedule. */
  runAt: string | null;
  /** `active` until cancelled; a one-shot that fired is `finished`. */
  status: 'active' | 'cancelled' | 'finished';
  /** The next (up to) three fire times, local ISO 8601 with the zone's offset; empty when inactive. */
  nextFireTimes: string[];
  /** When it was created (ISO 8601, UTC). */
  createdAt: string;
}

/** What `createSchedule` takes: a prompt, a name, and either `cron` (+ `timeZone`) or `runAt`. */
export interface CreateScheduleRequest {
  /** The calling agent; the schedule belongs to it. */
  agentId: string;
  /** A short name, unique among the agent's active schedules. */
  name: string;
  /** The prompt for the turn each fire starts. */
  prompt: string;
  /** A 5-field cron expression, read in `timeZone`. */
  cron?: string | null;
  /** An IANA time zone; default `UTC`. */
  timeZone?: string | null;
  /** A one-shot ISO 8601 time; without an offset it is read in `timeZone`. */
  runAt?: string | null;
  /**
   * The create's key (at most 500 bytes): a second create with the same key creates nothing and
   * answers with the schedule the first created (the schedule tool passes its call's
   * `idempotencyKey`, so a call run again after its worker stopped creates one schedule).
   */
  idempotencyKey?: string;
}

/** One fire of a schedule, from the run ledger: one row per (schedule, slot), however often it was delivered. */
export interface ScheduleRunRecord {
  /** The run's id (`TurnRequest.runId`; the turns it ran carry it as their `sourceId`). */
  id: string;
  /** The schedule that fired. */
  scheduleId: string;
  /** The slot that fired (ISO 8601, UTC): the scheduled time. */
  slot: string;
  /** When the scheduler enqueued it (ISO 8601, UTC): later than `slot` for a slot missed while no worker ran. */
  firedAt: string;
  /** `enqueued` until a worker takes it, `running`, then `completed` or `failed` (after its retries). */
  status: 'enqueued' | 'running' | 'completed' | 'failed';
  /** Deliveries so far. */
  attempts: number;
  /** Why its last attempt failed, when one did. */
  error?: string;
  /** The newest turn that ran it, when one was recorded. */
  turnId?: string;
}
