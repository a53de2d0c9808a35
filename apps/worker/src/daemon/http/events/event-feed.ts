import type { ApprovalStore, TurnStore } from '@switchyard/control-plane';
import { approvalView, type DaemonApproval } from '../../daemon-approvals';
import {
  type DaemonTurnEvent,
  type DaemonTurnSnapshot,
  type DaemonTurns,
  snapshotOf,
} from '../../daemon-turns';

/** One message of `GET /v1/events`. */
export type FeedMessage =
  | {
      /** A turn started, changed status (waiting for approval, running again) or ended, anywhere. */
      event: 'turn';
      data: DaemonTurnSnapshot;
    }
  | {
      /** An event of a turn this process runs, as `GET /v1/turns/:id/events` sends it. */
      event: 'turn-event';
      data: { turnId: string; agent: string; event: DaemonTurnEvent };
    }
  | {
      /** An approval was asked for, answered, expired or cancelled, anywhere. */
      event: 'approval';
      data: DaemonApproval;
    };

/** A message as sent: numbered in the order this process's feed sent it. */
export type NumberedFeedMessage = FeedMessage & {
  /** Its number in this process's feed (the event's `id`): the same on every stream that sends it. */
  id: number;
};

const texts = new WeakMap<NumberedFeedMessage, string>();

/**
 * The message as one server-sent event (`id`, `event`, `data`). Formatted once, however many
 * streams send it: what a stream queues for a slow reader is the same string as every other's.
 */
export function feedMessageText(message: NumberedFeedMessage): string {
  let text = texts.get(message);
  if (text === undefined) {
    text = `id: ${message.id}\nevent: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`;
    texts.set(message, text);
  }
  return text;
}

/** What `EventFeed` reads. */
export interface EventFeedOptions {
  /** This process's turns: their live events. */
  turns: Pick<DaemonTurns, 'observe' | 'has'>;
  /** The records: changes made by every process on the database. */
  controlPlane: { turns: Pick<TurnStore, 'changes'>; approvals: Pick<ApprovalStore, 'changes'> };
  /** The agents served: only theirs are fed. */
  agents: readonly string[];
  /** How often the records are read for other processes' changes, in ms. Default 1000. */
  pollMs?: number;
  /** Receives a line when reading the records fails. */
  log?: (line: string) => void;
}

/** How far back each read of the records reaches again: a change committed late is still seen. */
const OVERLAP_MS = 5_000;
/** Keys of messages already sent, kept to skip repeats of the overlap. */
const MAX_SEEN = 20_000;

/**
 * The feed of `GET /v1/events`: every turn and approval of the agents served, for a console. Live
 * events of this process's turns come as they happen; what other processes on the database do
 * comes from polling the records' change feeds (`turns.changes`, `approvals.changes`) while anyone
 * listens. A status is sent once, whichever way it arrives first.
 *
 * Contract: `subscribe` never throws into the listener's caller; the records are read only while at
 * least one listener is subscribed.
 */
export class EventFeed {
  readonly #options: EventFeedOptions;
  readonly #listeners = new Set<(message: NumberedFeedMessage) => void>();
  #sent = 0;
  readonly #seen = new Map<string, string>();
  #unobserve: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #since: string | undefined;
  #reading = false;

  constructor(options: EventFeedOptions) {
    this.#options = options;
  }

  /** Sends every later message to `listener`; returns an unsubscribe function. */
  subscribe(listener: (message: NumberedFeedMessage) => void): () => void {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) this.#open();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#close();
    };
  }

  #open(): void {
    this.#since = new Date(Date.now() - OVERLAP_MS).toISOString();
    this.#unobserve = this.#options.turns.observe((turn, event) => {
      if (!this.#options.agents.includes(turn.agent)) return;
      if (event === undefined) {
        this.#sendTurn(turn);
        return;
      }
      this.#send({ event: 'turn-event', data: { turnId: turn.id, agent: turn.agent, event } });
      if (event.type === 'approval-requested' || event.type === 'approval-resolved') {
        this.#sendApproval(event.approval);
        this.#sendTurn(turn);
      }
      if (event.type === 'turn-end') this.#sendTurn(turn);
    });
    this.#timer = setInterval(() => void this.#read(), this.#options.pollMs ?? 1000);
    this.#timer.unref();
  }

  #close(): void {
    this.#unobserve?.();
    this.#unobserve = undefined;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #read(): Promise<void> {
    if (this.#reading || this.#since === undefined) return;
    this.#reading = true;
    try {
      const agentIds = this.#options.agents;
      const turns = await this.#options.controlPlane.turns.changes({ since: this.#since, agentIds });
      const approvals = await this.#options.controlPlane.approvals.changes({ since: this.#since, agentIds });
      // A turn this process runs is sent from its live events: a record read just before the turn
      // moved on would send an older status after the live one (waiting-approval after running).
      for (const record of turns.turns) {
        if (!this.#options.turns.has(record.id)) this.#sendTurn(snapshotOf(record));
      }
      for (const record of approvals.approvals) this.#sendApproval(approvalView(record));
      this.#since = new Date(Date.parse(turns.now) - OVERLAP_MS).toISOString();
    } catch (error) {
      this.#options.log?.(`switchyard serve: the event feed could not read the records: ${String(error)}`);
    } finally {
      this.#reading = false;
    }
  }

  #sendTurn(turn: DaemonTurnSnapshot): void {
    // A turn's status as it stands: sent once per status, from this process or the records.
    if (this.#first(`turn:${turn.id}`, turn.status)) this.#send({ event: 'turn', data: turn });
  }

  #sendApproval(approval: DaemonApproval): void {
    // An answered approval is never pending again: a pending record is a read from before the answer.
    const seen = this.#seen.get(`approval:${approval.id}`);
    if (approval.status === 'pending' && seen !== undefined && !seen.startsWith('pending:')) return;
    if (this.#first(`approval:${approval.id}`, `${approval.status}:${approval.consumedAt ?? ''}`)) {
      this.#send({ event: 'approval', data: approval });
    }
  }

  /** True when `state` is new for `key` (and remembers it). */
  #first(key: string, state: string): boolean {
    if (this.#seen.get(key) === state) return false;
    this.#seen.delete(key);
    this.#seen.set(key, state);
    if (this.#seen.size > MAX_SEEN) {
      const oldest = this.#seen.keys().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
    return true;
  }

  #send(message: FeedMessage): void {
    this.#sent += 1;
    const numbered: NumberedFeedMessage = { ...message, id: this.#sent };
    for (const listener of this.#listeners) {
      try {
        listener(numbered);
      } catch {
        // One listener's trouble (a closed connection) is its own.
      }
    }
  }
}
