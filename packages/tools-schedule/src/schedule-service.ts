/** A schedule as a `ScheduleService` reports it. */
export interface ScheduleSummary {
  /** The schedule's id; `cancel_schedule` takes it. */
  id: string;
  /** A short name, unique among the agent's active schedules. */
  name: string;
  /** The prompt the agent's turn starts with when it fires. */
  prompt: string;
  /** `cron`: recurring; `once`: a one-shot time. */
  kind: 'cron' | 'once';
  /** The cron expression, or null for a one-shot. */
  cron: string | null;
  /** The IANA zone the cron and the reported times are read in. */
  timeZone: string;
  /** A one-shot's time (ISO 8601 with offset), or null for a cron schedule. */
  runAt: string | null;
  /** `active` until cancelled; a one-shot that fired is `finished`. */
  status: 'active' | 'cancelled' | 'finished';
  /** The next (up to) three fire times, ISO 8601 with the zone's offset. */
  nextFireTimes: string[];
}

/** What `createSchedule` receives: either `cron` (with `timeZone`) or `runAt`. */
export interface ScheduleCreateRequest {
  /** The calling agent; the schedule belongs to it. */
  agentId: string;
  /** A short name. */
  name: string;
  /** The prompt for the turn each fire starts. */
  prompt: string;
  /** A 5-field cron expression read in `timeZone`. */
  cron?: string;
  /** An IANA time zone. */
  timeZone?: string;
  /** A one-shot ISO 8601 time; without an offset it is read in `timeZone`. */
  runAt?: string;
  /**
   * The create's key: a second create with the same key creates nothing and answers with the
   * schedule the first created (`create_schedule` passes its call's `idempotencyKey`).
   */
  idempotencyKey?: string;
}

/**
 * Durable schedules, scoped by agent. `@switchyard/control-plane` implements it
 * (`controlPlane.schedules`); the tools never see the database.
 *
 * Contract: every method acts only on `agentId`'s schedules. `createSchedule` throws with a
 * message the model can act on (invalid cron or zone, a past one-shot time, a limit reached);
 * `cancelSchedule` returns null when the agent has no schedule with that id.
 */
export interface ScheduleService {
  /** Creates a schedule and reports its next fire times. */
  createSchedule(request: ScheduleCreateRequest): Promise<ScheduleSummary>;
  /** The agent's active schedules. */
  listSchedules(request: { agentId: string }): Promise<ScheduleSummary[]>;
  /** Cancels one of the agent's schedules; null when it has none with that id. */
  cancelSchedule(request: { agentId: string; scheduleId: string }): Promise<ScheduleSummary | null>;
}
