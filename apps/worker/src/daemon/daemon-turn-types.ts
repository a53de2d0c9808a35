import type {
  AgentBudgetStore,
  ApprovalFileBefore,
  TurnJournalStore,
  TurnRecord,
  TurnStore,
} from '@switchyard/control-plane';
import type {
  AgentEvent,
  AgentRunStatus,
  AgentUsage,
  AnyWorkerAgentTool,
  ResponsesModel,
  ToolSearchMode,
} from '@switchyard/core';
import type { ApprovalPolicy } from '../config/worker-config';
import type { DaemonApproval, DaemonApprovalStore } from './daemon-approvals';

// The daemon's turns as the HTTP API, start-daemon and the work sources see them: what a turn
// takes, what it reports, and the events it streams (`DaemonTurns` runs them).

/** Where a daemon turn came from. */
export type DaemonTurnSource = 'api' | 'schedule' | 'job' | 'task';

/**
 * A turn's state: `running`; `waiting-approval` while a call of it is held for an operator's
 * answer; then how the loop ended it; `interrupted` when the process running it stopped without
 * recording an end (read back from the turn records).
 */
export type DaemonTurnStatus = 'running' | 'waiting-approval' | AgentRunStatus | 'interrupted';

/** What the HTTP API reports about one turn (`GET /v1/turns/:id`). */
export interface DaemonTurnSnapshot {
  /** The turn id (`turn_<uuid>`). */
  id: string;
  /** The agent the turn ran for. */
  agent: string;
  /** Where the turn came from. */
  source: DaemonTurnSource;
  /** The source's own id: the schedule run id for `schedule`, absent for `api`. */
  sourceId?: string;
  /** The prompt's first line, at most 120 characters (control-plane's `turnTitleOf`). */
  title: string;
  /** `running`, `waiting-approval`, or how the loop ended the turn. */
  status: DaemonTurnStatus;
  /** The last response's output text (empty while running). */
  output: string;
  /** Token usage so far (summed over the turn's model requests). */
  usage: AgentUsage;
  /** Model requests made so far. */
  iterations: number;
  /** When the turn started (ISO 8601). */
  createdAt: string;
  /** When the turn ended (ISO 8601), absent while running. */
  endedAt?: string;
  /** Why the turn failed or was aborted, or (status `incomplete`) why its final response was cut off. */
  error?: string;
  /**
   * The limits of its agent that delayed or ended it, in order (`turnsAtOnce`, `tokensPerTurn`,
   * `tokensPerDay`); absent when none did.
   */
  limitedBy?: string[];
}

/** What one turn needs to run. */
export interface DaemonTurnRequest {
  /** The agent the turn runs for. */
  agentId: string;
  /** The user's message. */
  prompt: string;
  /** Where the turn came from. */
  source: DaemonTurnSource;
  /** The source's own id (a schedule run id, a job id, a task key). */
  sourceId?: string;
  /**
   * The attempt of the source's unit this turn runs (the queue's delivery count): recorded with the
   * turn, so that if this process dies the unit is handed back to its queue for the next attempt.
   */
  attempt?: number;
  /** The source's own cancellation (a cancelled workflow or job): aborts the turn too. */
  signal?: AbortSignal;
  /**
   * This turn's own tool array instead of the daemon's `tools` hook: task and job turns use their
   * fixed list (`createTaskTurnTools`), not the text-turn composition.
   */
  tools?: (
    context: DaemonTurnContext,
  ) => readonly AnyWorkerAgentTool[] | Promise<readonly AnyWorkerAgentTool[]>;
  /** This turn's own instructions instead of the daemon's `instructions` hook. */
  instructions?: string;
  /**
   * JSON stored with the turn when a call of it is held: what `resumeRequest` needs to rebuild this
   * turn's own `tools` in another process (a task turn's unit).
   */
  resumeContext?: Record<string, unknown>;
  /**
   * The W3C `traceparent` of the tool call that started this work (stored with a workflow task or a
   * background job): the turn's span becomes its child, so work started elsewhere joins that trace.
   */
  traceParent?: string;
}

/** What the daemon's `tools` hook receives: builds the turn's tool array. */
export interface DaemonTurnContext
  extends Omit<DaemonTurnRequest, 'tools' | 'signal' | 'instructions' | 'resumeContext'> {
  /** The daemon's turn id. */
  turnId: string;
  /** Aborts when the turn is cancelled (shutdown past the grace period). */
  signal: AbortSignal;
}

/** How the turns `serve` runs unattended treat calls their agent's policy asks about. */
export interface DaemonApprovalOptions {
  /** Where approvals are recorded and answered (`controlPlane.approvals`). */
  store: DaemonApprovalStore;
  /** The approval policy of an agent. */
  policy(agentId: string): ApprovalPolicy;
  /** How often a held call checks whether it was answered, in ms. Default 1000. */
  pollMs?: number;
  /** What a held call would replace, recorded with its approval (`DaemonFileBefore`). Default: nothing. */
  fileBefore?: DaemonFileBefore;
}

/**
 * Reads what a held call would replace (the file of a `write_file`) when its approval is asked for,
 * or undefined for a call that replaces no file. Its failures are its own: a rejection records the
 * approval without it.
 */
export type DaemonFileBefore = (call: {
  agentId: string;
  toolKey: string;
  params: unknown;
}) => Promise<ApprovalFileBefore | undefined>;

/** How the daemon builds and runs each turn. */
export interface DaemonTurnRunnerOptions {
  /** The model every turn talks to. */
  model: ResponsesModel;
  /** Builds the turn's tool array, explicitly, from its context. Default: no tools. */
  tools?: (
    context: DaemonTurnContext,
  ) => readonly AnyWorkerAgentTool[] | Promise<readonly AnyWorkerAgentTool[]>;
  /** Builds the turn's instructions. Default: none. */
  instructions?: (context: DaemonTurnContext) => string | undefined | Promise<string | undefined>;
  /**
   * Runs before every turn's tools are built, whatever its source (the daemon creates the agent's
   * home there). A rejection fails the turn, with its message as the turn's error.
   */
  beforeTurn?: (context: DaemonTurnContext) => void | Promise<void>;
  /** Most model requests per turn. */
  maxIterations?: number;
  /** Per tool call timeout in milliseconds. */
  toolTimeoutMs?: number;
  /** Most calls of one response running at once (default: core's). */
  maxParallelCalls?: number;
  /**
   * A turn is aborted after this many milliseconds of running (time waiting for an approval does
   * not count). Default: no limit.
   */
  turnTimeoutMs?: number;
  /** How deferred tools are offered (default: the model's). */
  toolSearch?: ToolSearchMode;
  /** Finished turns kept in memory for the HTTP API (oldest dropped first). Default 1000. */
  maxRetainedTurns?: number;
  /**
   * The most bytes of finished turns kept in memory (`serve.maxRetainedTurnBytes`), measured when
   * each ends as the JSON size of its event log (text deltas joined, as the records store it) plus
   * its output; the oldest are dropped first, the newest too when it alone is larger. Turns dropped
   * are read from the records. Default 32 MiB (`DEFAULT_MAX_RETAINED_TURN_BYTES`).
   */
  maxRetainedTurnBytes?: number;
  /**
   * Where every turn is recorded, durably, when it starts and when it ends (the control plane's
   * `turns`). Absent: turns live in memory only.
   */
  records?: DaemonTurnRecords;
  /** This process's id in the turn records (default: `PROCESS_WORKER_ID`, one per process). */
  workerId?: string;
  /**
   * The turns' journals (the control plane's `journals`), with `records`: every turn records each
   * model response and tool call before it moves on, and a turn whose worker stopped continues from
   * them (`resumeInterrupted`, a unit's next attempt, a turn continued after its held call was
   * answered). Absent: no journal.
   */
  journals?: Pick<TurnJournalStore, 'open' | 'read'>;
  /**
   * With `journals`: a turn's journal is kept in memory (nothing written) until a call of it is held
   * for approval, then written whole and through (`serve.journal: false`). Default false.
   */
  journalHeldTurnsOnly?: boolean;
  /** Receives one-line messages: each turn that did not finish, and recording problems. Default: none. */
  log?: (line: string) => void;
  /** Approval policies of held calls. Absent: every validated call runs. */
  approvals?: DaemonApprovalOptions;
  /** Each agent's token budgets and turns at once, with `records`. Absent: turns are not limited. */
  budgets?: DaemonTurnBudgets;
  /**
   * Rebuilds the own `tools` and `instructions` of a turn continued from its checkpoint (another
   * process held its call), from the turn's record and the `resumeContext` it was started with.
   * Undefined: the daemon's hooks build it, as an ordinary text turn.
   */
  resumeRequest?: (
    turn: TurnRecord,
    context: Record<string, unknown> | undefined,
  ) => Pick<DaemonTurnRequest, 'tools' | 'instructions'> | undefined;
}

/** An agent's limits that `DaemonTurns` holds (the rest of its budgets the control plane holds). */
export interface DaemonTurnLimits {
  /** Tokens one turn may spend. */
  tokensPerTurn: number;
  /** Tokens the agent's turns may spend in any 24 hours, across the fleet. */
  tokensPerDay: number;
  /** The agent's turns running at once, across the fleet. */
  turnsAtOnce: number;
}

/** How `DaemonTurns` holds each agent's budgets. */
export interface DaemonTurnBudgets {
  /** Where tokens and admissions are counted (`controlPlane.budgets`). */
  store: Pick<AgentBudgetStore, 'recordTokens' | 'tokensLastDay' | 'admitTurn'>;
  /** The limits of an agent. */
  of(agentId: string): DaemonTurnLimits;
  /** How often the first turn of an agent waiting for a slot in this process asks again, in ms. Default 500. */
  slotPollMs?: number;
}

/** The part of the control plane's `TurnStore` the daemon's turns use. */
export type DaemonTurnRecords = Pick<
  TurnStore,
  'recordStart' | 'recordEnd' | 'heartbeat' | 'get' | 'events' | 'checkpoint'
>;

type StreamedEventType = Exclude<AgentEvent['type'], 'turn-end'>;

/**
 * The last event of a turn's stream: core's `turn-end` with `error` as a message; its status is
 * `interrupted` only when read back from the records of a turn whose process died.
 */
export type DaemonTurnEndEvent = Omit<Extract<AgentEvent, { type: 'turn-end' }>, 'error' | 'status'> & {
  status: Exclude<DaemonTurnStatus, 'running' | 'waiting-approval'>;
  error?: string;
};

/** A call of the turn is held for an operator's answer (`approval-requested`). */
export interface ApprovalRequestedEvent {
  /** Discriminator. */
  type: 'approval-requested';
  /** The approval, `pending`. */
  approval: DaemonApproval;
}

/** A held call's approval was decided and the turn acts on it (`approval-resolved`). */
export interface ApprovalResolvedEvent {
  /** Discriminator. */
  type: 'approval-resolved';
  /** The approval: `allowed`, `denied`, `expired` or `cancelled`. */
  approval: DaemonApproval;
}

/** When an event happened, stamped by the turn registry as it takes the event. */
export interface TimedEvent {
  /**
   * When the process running the turn took the event (ISO 8601, milliseconds): a turn's timeline is
   * drawn from these. Absent in logs recorded before events carried it; a text delta joined with
   * the ones after it keeps the first one's time.
   */
  at?: string;
}

/** An event as the HTTP API sends it: the core event with `error` as a message, or an approval event. */
export type DaemonTurnEvent = (
  | {
      [Type in StreamedEventType]: Omit<Extract<AgentEvent, { type: Type }>, 'error'> & { error?: string };
    }[StreamedEventType]
  | DaemonTurnEndEvent
  | ApprovalRequestedEvent
  | ApprovalResolvedEvent
) &
  TimedEvent;
