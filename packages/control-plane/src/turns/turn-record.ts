/** Every source of a turn, in the order the API documents them. */
export const TURN_SOURCES = ['api', 'schedule', 'job', 'task'] as const;

/** Where a turn came from: the HTTP API, a schedule fire, a background job or a workflow task. */
export type TurnSource = (typeof TURN_SOURCES)[number];

/**
 * A turn's state: `running`, `waiting-approval` while a tool call of it is held for an operator's
 * answer, then how the loop ended it (`incomplete`: its final answer was cut off, `error` says
 * why; `budget-exceeded`: one of its agent's token budgets ended it, `error` and `limitedBy` say
 * which), or `interrupted` when the process running it stopped without
 * recording an end (a crash, a SIGKILL) while it was running.
 */
export type TurnRecordStatus = (typeof TURN_STATUSES)[number];

/** Every status a turn record can have (see `TurnRecordStatus`), in the order the API documents them. */
export const TURN_STATUSES = [
  'running',
  'waiting-approval',
  'completed',
  'incomplete',
  'ended-by-tool',
  'aborted',
  'max-iterations',
  'budget-exceeded',
  'failed',
  'interrupted',
] as const;

/** The statuses `recordEnd` takes: how the loop ended the turn. */
export type TurnEndStatus = Exclude<TurnRecordStatus, 'running' | 'waiting-approval' | 'interrupted'>;

/** Token usage of a turn, summed over its model requests. */
export interface TurnUsage {
  /** Input tokens. */
  inputTokens: number;
  /** Input tokens served from the provider's cache. */
  cachedInputTokens: number;
  /** Output tokens. */
  outputTokens: number;
  /** Reasoning tokens (part of the output). */
  reasoningTokens: number;
  /** Everything. */
  totalTokens: number;
}

/** One turn as recorded. */
export interface TurnRecord {
  /** The turn id the worker gave it. */
  id: string;
  /** The agent it ran for. */
  agentId: string;
  /** Where it came from. */
  source: TurnSource;
  /** The source's own id (a schedule run id, a job id, `workflowId/taskId`); absent for API turns. */
  sourceId?: string;
  /** The attempt (delivery) of its source's unit this turn ran, 1 first; absent for API turns. */
  attempt?: number;
  /** The user's message. */
  prompt: string;
  /** The prompt's first line, at most 120 characters (`turnTitleOf`): what a list of turns shows. */
  title: string;
  /** `running`, how it ended, or `interrupted`. */
  status: TurnRecordStatus;
  /** The final output text (empty while running). */
  output: string;
  /** Token usage (zeros while running). */
  usage: TurnUsage;
  /** Model requests made. */
  iterations: number;
  /** Why it failed, was aborted or interrupted. */
  error?: string;
  /** Events left out of the stored event log to keep it under the size limit (0: the whole log). */
  eventsDropped: number;
  /** The worker process that ran it. */
  workerId: string;
  /** When it started (ISO 8601). */
  createdAt: string;
  /** When it ended (ISO 8601); absent while running. */
  endedAt?: string;
  /** When its worker last said it was still running (ISO 8601). */
  heartbeatAt: string;
  /** When its status last changed (ISO 8601). */
  updatedAt: string;
  /** Why its cancellation was asked for (`requestCancel`), while it has not ended yet. */
  cancelRequested?: string;
  /**
   * How many times a worker took it over after its worker stopped and resumed it from its journal
   * (`claimInterrupted`); 0 for a turn that ran in one go.
   */
  resumedCount: number;
  /** When it was last resumed (ISO 8601); absent when it never was. */
  resumedAt?: string;
  /**
   * The limits of its agent that delayed or ended it, in the order they did, as the configuration
   * names them (`turnsAtOnce`, `tokensPerTurn`, `tokensPerDay`); empty when none did.
   */
  limitedBy: string[];
}

/** What `recordStart` takes: the record's `agentId`, `source`, `sourceId` and `prompt`, and these. */
export interface RecordTurnStartRequest
  extends Pick<TurnRecord, 'agentId' | 'source' | 'sourceId' | 'prompt'> {
  /** The turn's id: letters, digits, `_` and `-`, 1 to 80 characters. */
  id: string;
  /**
   * The attempt of the source's unit this turn runs (`WorkTurnContext.attempt`,
   * `TurnRequestContext.attempt`). With it, an interrupted turn hands its unit back to its queue, and
   * only that attempt may store the unit's result.
   */
  attempt?: number;
  /** The worker process running it (its heartbeats keep the turn from being marked interrupted). */
  workerId: string;
}

/** What `recordEnd` takes. */
export interface RecordTurnEndRequest {
  /** The turn's id. */
  id: string;
  /** How the loop ended the turn. */
  status: TurnEndStatus;
  /** The final output text. */
  output: string;
  /** Token usage. */
  usage: TurnUsage;
  /** Model requests made. */
  iterations: number;
  /** Why it failed or was aborted. */
  error?: string;
  /** The turn's event log (JSON values, oldest first); trimmed in the middle when over the size limit. */
  events?: readonly unknown[];
  /** The limit that ended it (with `budget-exceeded`), added to its `limitedBy`. */
  limitedBy?: string;
}

/** What `list` takes. */
export interface ListTurnsOptions {
  /** Only this agent's turns. */
  agentId?: string;
  /** Only turns of these agents. */
  agentIds?: readonly string[];
  /** Only turns in this state. */
  status?: TurnRecordStatus;
  /** Only turns from this source. */
  source?: TurnSource;
  /**
   * Only turns whose prompt holds this text (1 to 200 bytes), compared case-insensitively within
   * the prompt's first 4,096 characters. A search reads a bounded number of turns per page (see
   * `TurnStore.page`).
   */
  text?: string;
  /** Only turns started at or after this time (ISO 8601 UTC). */
  createdAfter?: string;
  /** Only turns started before this time (ISO 8601 UTC). */
  createdBefore?: string;
  /**
   * Only turns older than this one, in the list's order (newest first): the last turn of the previous
   * page, for cursor paging.
   */
  before?: TurnCursor;
  /** At most this many, newest first. Default 50, at most 500. */
  limit?: number;
}

/** A position in a list of turns: the `createdAt` and `id` of a turn. */
export interface TurnCursor {
  /** The turn's `createdAt` (ISO 8601). */
  createdAt: string;
  /** The turn's id. */
  id: string;
}

/** What `heartbeat` answers: turns of the ones given that should stop. */
export interface TurnHeartbeat {
  /**
   * Turns to abort, with why: their cancellation was asked for (`requestCancel`), or the unit they
   * run while detached from its queue (a held call) was cancelled or went to another attempt.
   */
  stop: Array<{ id: string; reason: string }>;
}

/** Changes to turns since a point in the database's time (`changes`). */
export interface TurnChanges {
  /** Turns whose status changed (or that started) after `since`, oldest change first. */
  turns: TurnRecord[];
  /** The database's time when read: the next call's `since` (less a margin for slow commits). */
  now: string;
}

/** A turn's stored event log. */
export interface TurnEventLog {
  /** The events, oldest first (none while the turn runs: the log is written at its end). */
  events: unknown[];
  /** Events left out of the middle of the log to keep it under the size limit. */
  dropped: number;
}

/** The unit of work a turn ran, as the turn records name it. */
export type RecoveredUnit = 'workflow-task' | 'background-job' | 'schedule-run';

/** What happened to the unit of work of a turn found interrupted. */
export interface TurnRecovery {
  /** The kind of unit. */
  unit: RecoveredUnit;
  /** Its id: `workflowId/taskId`, the job id, or the schedule run id. */
  unitId: string;
  /** The attempt the interrupted turn ran. */
  attempt: number;
  /** The worker that ran it and stopped heartbeating. */
  previousWorkerId: string;
  /**
   * `requeued`: back in its queue, for any live worker to take as the next attempt; `failed`: out of
   * retries, parked as failed with the reason; `settled`: nothing to hand back (the unit had ended,
   * was cancelled, or another attempt had already taken it over).
   */
  outcome: 'requeued' | 'failed' | 'settled';
  /** When requeued: the earliest time the next attempt starts (ISO 8601). */
  retryAt?: string;
  /** One line saying what happened: also appended to the turn record's `error`. */
  description: string;
}

/** A turn `markInterrupted` marked, with what became of its unit (none for API turns). */
export interface InterruptedTurnRecord extends TurnRecord {
  /** The hand-back of the unit it ran; absent when it ran none (an API turn) or recorded no attempt. */
  recovery?: TurnRecovery;
}
