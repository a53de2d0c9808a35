/** One scheduled turn for an agent: what the worker's daemon runs when a schedule fires. */
export interface TurnRequest {
  /** The ledger row of this (schedule, slot): `switchyard.schedule_runs.id`, also the queue job id. */
  runId: string;
  /** The schedule that fired. */
  scheduleId: string;
  /** The schedule's name. */
  scheduleName: string;
  /** The agent whose turn this is. */
  agentId: string;
  /** The prompt the turn starts with. */
  prompt: string;
  /** The slot that fired (ISO 8601, UTC): the scheduled time, not the time it was noticed. */
  slot: string;
  /** `schedule:<scheduleId>:<slot>`: the same for every delivery of this unit of work. */
  idempotencyKey: string;
}

/** What a turn-request handler receives besides the request. */
export interface TurnRequestContext {
  /**
   * 1 on the first delivery; more when an earlier delivery failed or its worker died. Record it with
   * the turn (`turns.recordStart({ attempt })`) so a dead worker's run is handed back.
   */
  attempt: number;
  /** The pg-boss job id: `runId` for the first job of a run; a new id after the run was handed back. */
  jobId: string;
}

/** Runs one turn request. Throwing (or the process dying) makes it retry, up to the retry limit. */
export type TurnRequestHandler = (request: TurnRequest, context: TurnRequestContext) => Promise<void>;
