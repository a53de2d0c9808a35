import type { TurnRecord, TurnSource } from '../turns/turn-record';

/**
 * An approval's state: `pending` until answered; `allowed` or `denied` by an answer; `expired` (a
 * denial) when nobody answered in time; `cancelled` when its turn ended first, or its unit stopped
 * being the turn's.
 */
export type ApprovalStatus = 'pending' | 'allowed' | 'denied' | 'expired' | 'cancelled';

/**
 * The file a held `write_file` call would replace, as it was when the approval was asked for, so an
 * operator can see what changes: `text` whole, or `cut` (its first `FILE_BEFORE_MAX_TEXT_BYTES`, cut
 * at a character; `bytes` is the whole file's size), `binary` (not text: its size only), `missing` (the
 * call creates it) or `unreadable` (outside the home, a directory, ...: why).
 */
export type ApprovalFileBefore =
  | { path: string; state: 'text' | 'cut'; text: string; bytes: number }
  | { path: string; state: 'binary'; bytes: number }
  | { path: string; state: 'missing' }
  | { path: string; state: 'unreadable'; reason: string };

/** One tool call held for an operator's answer. */
export interface ApprovalRecord {
  /** `approval_<uuid>`. */
  id: string;
  /** The turn whose call is held. */
  turnId: string;
  /** The held function call's `call_id`, as the endpoint sent it. */
  callId: string;
  /**
   * Where the held call's item sits in its turn's transcript (core's `ToolCallRequest.itemIndex`):
   * the approval's key within the turn. Absent on approvals recorded before it existed (keyed by
   * `callId` alone).
   */
  callIndex?: number;
  /** The turn's agent. */
  agentId: string;
  /** The turn's source (`api`, `schedule`, `job`, `task`). */
  source: TurnSource;
  /** The tool's key (`name`, or `namespace.name`). */
  toolKey: string;
  /** The call's activity label ("Writing notes/plan.md"). */
  activity: string;
  /**
   * The call's arguments as validated, whole: exactly what `execute` receives if it is allowed.
   * Lists (`page`, `list`, `changes`, `getMany`, `expireDue`) leave out arguments larger than
   * `APPROVAL_INLINE_ARGUMENT_BYTES` (undefined here, `argumentsPreview` set); `get`, `request`,
   * `answer`, `consume` and `claimResumable` always carry them.
   */
  arguments?: unknown;
  /** UTF-8 bytes of the arguments as JSON text. */
  argumentsBytes: number;
  /** For a call that replaces a file: the file as it was when the approval was asked for. */
  fileBefore?: ApprovalFileBefore;
  /**
   * For arguments larger than `APPROVAL_INLINE_ARGUMENT_BYTES`: the first and last
   * `APPROVAL_PREVIEW_BYTES` of their JSON text (what a list can show; `get` has them whole).
   */
  argumentsPreview?: { head: string; tail: string };
  /** Who may answer, as the policy names them. */
  approvers: string[];
  /** Its state. */
  status: ApprovalStatus;
  /** The answer's reason, or why it expired or was cancelled. */
  reason?: string;
  /** Who answered (`api`, `cli:<user>`, ...). */
  answeredBy?: string;
  /** When it was asked (ISO 8601). */
  createdAt: string;
  /** When an unanswered one is denied as expired (ISO 8601). */
  expiresAt: string;
  /** When it was answered, expired or cancelled (ISO 8601). */
  decidedAt?: string;
  /** When a worker acted on the decision (ISO 8601): an allowed call runs once, by that worker. */
  consumedAt?: string;
  /** The worker that acted on the decision. */
  consumedBy?: string;
  /** When it last changed (ISO 8601). */
  updatedAt: string;
}

/** What `approvals.request` takes: a call to hold, and what is needed to continue its turn elsewhere. */
export interface RequestApprovalRequest {
  /** The turn (recorded, running or waiting, on this worker). */
  turnId: string;
  /** The worker running the turn. */
  workerId: string;
  /** The held call's `call_id`. */
  callId: string;
  /**
   * Where the held call's item sits in the turn's transcript (`ToolCallRequest.itemIndex`): the
   * approval's key within the turn, since an endpoint may reuse a `call_id` in a later response.
   * Without it the key is `callId`.
   */
  callIndex?: number;
  /** The tool's key. */
  toolKey: string;
  /** The call's activity label. */
  activity: string;
  /**
   * The validated arguments, stored whole as JSON (at most `APPROVAL_MAX_ARGUMENT_BYTES`): a value
   * that cannot be stored exactly is refused, never kept as a preview.
   */
  arguments: unknown;
  /** Who may answer. */
  approvers: readonly string[];
  /** How long it may wait for an answer, in ms (at least 1 s, at most 30 days). */
  expiresInMs: number;
  /**
   * What another worker needs to continue the turn if this one stops (the transcript, events so far,
   * and whatever rebuilds its tools): JSON, stored with the turn until it ends.
   */
  checkpoint: unknown;
  /** For a call that replaces a file (`write_file`): the file as it is now, recorded with the approval. */
  fileBefore?: ApprovalFileBefore;
}

/** What `approvals.answer` takes. */
export interface AnswerApprovalRequest {
  /** The approval. */
  id: string;
  /** Run the call, or refuse it. */
  decision: 'allow' | 'deny';
  /** Why (the model reads a denial's reason). */
  reason?: string;
  /** Who answers (`api`, `cli:<user>`). */
  answeredBy: string;
}

/** What `approvals.answer` answers. */
export type AnswerApprovalOutcome =
  | {
      /** Recorded: the turn continues with it, in whichever worker picks it up. */
      status: 'answered';
      /** The approval as answered. */
      approval: ApprovalRecord;
    }
  | {
      /** It had been answered, had expired or was cancelled before: nothing changed. */
      status: 'already-decided';
      /** The approval as it is. */
      approval: ApprovalRecord;
    };

/** What `approvals.list` takes. */
export interface ListApprovalsOptions {
  /** Only approvals in this state. */
  status?: ApprovalStatus;
  /** Only approvals of these agents' turns. */
  agentIds?: readonly string[];
  /** Only approvals of this turn. */
  turnId?: string;
  /** Only approvals asked before this one, in the list's order (newest first): cursor paging. */
  before?: { createdAt: string; id: string };
  /** At most this many, newest first. Default 50, at most 500. */
  limit?: number;
}

/** A turn waiting for approval that a worker took over to continue (`approvals.claimResumable`). */
export interface ResumableTurn {
  /** The turn, now `running` on the claiming worker. */
  turn: TurnRecord;
  /** The checkpoint stored when its call was held (and updated while it waited). */
  checkpoint: unknown;
  /** Its unit (task, job, schedule run) is detached from its queue: the turn's end settles it. */
  unitDetached: boolean;
  /** The turn's approvals, oldest first. */
  approvals: ApprovalRecord[];
  /** Why its cancellation was asked for: then it is to be ended, not continued. */
  cancelRequested?: string;
}

/** Changes to approvals since a point in the database's time (`approvals.changes`). */
export interface ApprovalChanges {
  /** Approvals asked or decided after `since`, oldest change first. */
  approvals: ApprovalRecord[];
  /** The database's time when read. */
  now: string;
}
