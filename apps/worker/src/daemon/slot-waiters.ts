import type { AgentBudgetStore } from '@switchyard/control-plane';

/** One turn of this process waiting for a slot among its agent's turns at once. */
interface Waiter {
  request: { turnId: string; agentId: string; turnsAtOnce: number };
  signal: AbortSignal;
  settle(admitted: boolean): void;
  fail(error: unknown): void;
}

/**
 * The turns of this process that wait for a slot among their agent's turns at once, asked for in the
 * order they came: only the first of an agent asks the records again, when a turn of the agent ends
 * here (`slotFreed`) or every `pollMs` (a slot another process freed). A thousand waiting turns cost
 * one question a poll, not a thousand.
 *
 * Contract: `wait` resolves true once the turn holds a slot, false when its signal aborts first (it
 * leaves the line at once); rejects with the records' error when they cannot be asked (the turn
 * fails), and the next in line asks in its place. Every timer is held here until it fires or is cleared.
 */
export class SlotWaiters {
  readonly #store: Pick<AgentBudgetStore, 'admitTurn'>;
  readonly #pollMs: number;
  /** The waiting turns of each agent, oldest first. */
  readonly #lines = new Map<string, Waiter[]>();
  /** Wakes the agent's first waiter before its next poll (a slot freed here). */
  readonly #wakeUps = new Map<string, () => void>();

  constructor(store: Pick<AgentBudgetStore, 'admitTurn'>, pollMs: number) {
    this.#store = store;
    this.#pollMs = pollMs;
  }

  /** Waits in the agent's line for a slot; see the class's contract. */
  wait(request: Waiter['request'], signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve, reject) => {
      const line = this.#lines.get(request.agentId) ?? [];
      const waiter: Waiter = {
        request,
        signal,
        settle: (admitted) => {
          signal.removeEventListener('abort', onAbort);
          resolve(admitted);
        },
        fail: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const at = line.indexOf(waiter);
        if (at > 0) line.splice(at, 1);
        // The first in line leaves when its question returns (or now, when it was napping).
        if (at === 0) this.#wakeUps.get(request.agentId)?.();
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      line.push(waiter);
      if (line.length === 1) {
        this.#lines.set(request.agentId, line);
        void this.#serve(request.agentId, line);
      }
    });
  }

  /** A turn of `agentId` ended in this process: the agent's first waiter asks for its slot now. */
  slotFreed(agentId: string): void {
    this.#wakeUps.get(agentId)?.();
  }

  /** Asks for the first waiter of the line until the line is empty. */
  async #serve(agentId: string, line: Waiter[]): Promise<void> {
    while (line.length > 0) {
      const first = line[0] as Waiter;
      if (first.signal.aborted) {
        line.shift();
        continue;
      }
      let admitted: boolean;
      try {
        admitted = (await this.#store.admitTurn(first.request)).admitted;
      } catch (error) {
        line.shift();
        first.fail(error);
        continue;
      }
      if (admitted) {
        line.shift();
        first.settle(true);
        continue;
      }
      if (!first.signal.aborted) await this.#nap(agentId);
    }
    this.#lines.delete(agentId);
  }

  /** Until `pollMs` passed or `slotFreed` (or the first waiter's abort) woke the line. */
  #nap(agentId: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#wakeUps.delete(agentId);
        resolve();
      };
      const timer = setTimeout(wake, this.#pollMs);
      this.#wakeUps.set(agentId, wake);
    });
  }
}
