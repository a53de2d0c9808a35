import type { ApprovalRecord } from '@switchyard/control-plane';
import type { DaemonApprovalStore } from './daemon-approvals';
import { errorMessage } from './error-message';

/** What `ApprovalDecisionWaiters` reads and how often. */
export interface ApprovalDecisionWaitersOptions {
  /** Where the approvals are answered (any process on the database may answer them). */
  store: Pick<DaemonApprovalStore, 'getMany' | 'expireDue'>;
  /** How often the waiting approvals are read, in ms. Default 1000. */
  pollMs?: number;
  /** Receives a line when the approvals could not be read (the next poll tries again). Default: none. */
  log?: (line: string) => void;
}

/**
 * The held calls of one process waiting for their approvals' decisions: one timer polls the store
 * for all of them while any waits (expiring those past their time first), and a decision made by
 * this process is handed over at once (`notify`).
 *
 * Contract: `wait` resolves once with the decided approval, or with undefined when its signal aborts
 * first; it never rejects (a failed read is logged and retried at the next poll). One poll runs at a
 * time; the timer runs only while a call waits and never holds the process open.
 */
export class ApprovalDecisionWaiters {
  readonly #options: ApprovalDecisionWaitersOptions;
  /** Held calls waiting for a decision, by approval id. */
  readonly #waiters = new Map<string, { expiresAt: number; resolve(record: ApprovalRecord): void }>();
  #pollTimer: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(options: ApprovalDecisionWaitersOptions) {
    this.#options = options;
  }

  /** How many calls wait now. */
  get size(): number {
    return this.#waiters.size;
  }

  /**
   * Resolves with the approval once decided (answered anywhere, or expired), or undefined when
   * `signal` aborts first.
   */
  wait(approval: ApprovalRecord, signal: AbortSignal): Promise<ApprovalRecord | undefined> {
    return new Promise((resolve) => {
      const finish = (record: ApprovalRecord | undefined) => {
        signal.removeEventListener('abort', onAbort);
        this.#waiters.delete(approval.id);
        if (this.#waiters.size === 0) this.stop();
        resolve(record);
      };
      const onAbort = () => finish(undefined);
      if (signal.aborted) {
        resolve(undefined);
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.set(approval.id, { expiresAt: Date.parse(approval.expiresAt), resolve: finish });
      if (this.#pollTimer === undefined) {
        this.#pollTimer = setInterval(() => void this.#poll(), this.#options.pollMs ?? 1000);
        this.#pollTimer.unref();
      }
    });
  }

  /** An approval decided by this process (its HTTP API): a call waiting on it goes on now. */
  notify(record: ApprovalRecord): void {
    if (record.status !== 'pending') this.#waiters.get(record.id)?.resolve(record);
  }

  /** Stops polling (a call that waits after this starts it again). */
  stop(): void {
    clearInterval(this.#pollTimer);
    this.#pollTimer = undefined;
  }

  async #poll(): Promise<void> {
    if (this.#polling || this.#waiters.size === 0) return;
    this.#polling = true;
    const { store } = this.#options;
    try {
      const now = Date.now();
      if ([...this.#waiters.values()].some((waiter) => waiter.expiresAt <= now)) await store.expireDue();
      for (const record of await store.getMany([...this.#waiters.keys()])) {
        if (record.status !== 'pending') this.#waiters.get(record.id)?.resolve(record);
      }
    } catch (error) {
      this.#options.log?.(`switchyard serve: could not check held calls' approvals: ${errorMessage(error)}`);
    } finally {
      this.#polling = false;
    }
  }
}
