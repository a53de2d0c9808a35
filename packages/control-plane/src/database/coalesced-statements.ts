/** One item waiting for the statement that carries it, and how to tell its caller. */
export interface WaitingItem<TItem, TResult> {
  item: TItem;
  resolve(result: TResult): void;
  reject(error: unknown): void;
}

/** How many items one statement carries and how many statements run at once. */
export interface CoalescingLimits {
  /** The most items one statement carries. */
  maxRows: number;
  /** The most bytes (the items' `bytes`) one statement carries; a larger item goes alone. */
  maxBytes: number;
  /** Statements under way at once; items that arrive meanwhile wait and go together in the next one. */
  maxInFlight: number;
}

/**
 * Items written to the database coalesced into statements (the journal's writes, turn starts): an
 * item goes at once while fewer than `maxInFlight` statements are under way, and items that arrive
 * meanwhile wait and go together in the next one, oldest first, within `maxRows` and `maxBytes`.
 * With many turns in flight this turns one round trip per item into one per batch; alone, an item
 * costs what it did.
 *
 * Contract: `send` settles every item of its batch (resolves or rejects each) and never rejects
 * itself; `add` resolves or rejects as `send` settles its item.
 */
export class CoalescedStatements<TItem extends { bytes: number }, TResult> {
  readonly #send: (batch: ReadonlyArray<WaitingItem<TItem, TResult>>) => Promise<void>;
  readonly #limits: CoalescingLimits;
  #waiting: Array<WaitingItem<TItem, TResult>> = [];
  #inFlight = 0;

  constructor(
    send: (batch: ReadonlyArray<WaitingItem<TItem, TResult>>) => Promise<void>,
    limits: CoalescingLimits,
  ) {
    this.#send = send;
    this.#limits = limits;
  }

  /** Sends `item` with the rest of whatever is waiting; see the class's contract. */
  add(item: TItem): Promise<TResult> {
    return new Promise<TResult>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#flush();
    });
  }

  /** Whether an item waiting for a statement (not yet sent) matches `predicate`. */
  waiting(predicate: (item: TItem) => boolean): boolean {
    return this.#waiting.some((waiting) => predicate(waiting.item));
  }

  /** Sends the waiting items while a statement slot is free. */
  #flush(): void {
    while (this.#inFlight < this.#limits.maxInFlight && this.#waiting.length > 0) {
      const batch = this.#takeBatch();
      this.#inFlight += 1;
      void this.#send(batch).finally(() => {
        this.#inFlight -= 1;
        this.#flush();
      });
    }
  }

  /** The oldest waiting items that fit one statement (at least one). */
  #takeBatch(): Array<WaitingItem<TItem, TResult>> {
    let bytes = 0;
    let count = 0;
    for (const waiting of this.#waiting) {
      if (count >= this.#limits.maxRows) break;
      if (count > 0 && bytes + waiting.item.bytes > this.#limits.maxBytes) break;
      bytes += waiting.item.bytes;
      count += 1;
    }
    return this.#waiting.splice(0, count);
  }
}
