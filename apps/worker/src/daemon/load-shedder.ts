/** What `LoadShedder` takes. */
export interface LoadShedderOptions {
  /**
   * The bound of work waiting in this process (`serve.maxWaitingWork`): API requests not yet
   * answered, plus turns running (from any source) for a request that would start more work.
   */
  maxWaitingWork: number;
  /** The turns this process runs now (API, schedule, task and job turns). */
  runningTurns(): number;
  /** The `Retry-After` of a refusal, in seconds. Default 2. */
  retryAfterSeconds?: number;
  /** Receives one line when refusals begin and one when they end (with their count). Default: none. */
  log?: (line: string) => void;
}

/** What `admit` decides. */
export type Admission =
  | {
      /** The request goes on; call `done` once its answer (its status and headers) is under way. */
      admitted: true;
      /** Ends the request's share of the waiting work. Idempotent. */
      done(): void;
      /**
       * Resolves as `waiting` does, the request not counted meanwhile: it waits on its client (its
       * body arriving), not on this process. A client that sends its body slowly holds a connection,
       * not a share of the bound, so a thousand of them do not lock everyone else out.
       */
      awaitClient<T>(waiting: Promise<T>): Promise<T>;
    }
  | {
      /** Refused: answer `503` with `Retry-After`, doing none of its work. */
      admitted: false;
      /** Why, for the error message: which bound was reached, with the figures. */
      reason: string;
      /** The `Retry-After` to send, in seconds. */
      retryAfterSeconds: number;
    };

/**
 * The daemon's load shedding: every request is answered, and beyond a bound of waiting work the
 * answer is a cheap `503` with `Retry-After` instead of more work piled on the event loop (and on
 * the process's file descriptors, whose exhaustion is what turned a burst into connection resets).
 *
 * Contract: a request that starts work (`POST /v1/turns`, `POST /v1/workflows`) is refused once
 * requests under way plus turns running reach `maxWaitingWork`; any other request once requests
 * under way alone reach it, so an operator can still read and cancel while turns fill the bound.
 * An admitted request counts until `done()`, except while it waits on its client (`awaitClient`).
 * Refusals are logged once when they begin and once,
 * with their count, when a request is admitted below nine tenths of the bound: a burst costs two
 * log lines, however long the load hovers at the bound.
 *
 * @example
 * const shedder = new LoadShedder({ maxWaitingWork: 1000, runningTurns: () => turns.running });
 * const admission = shedder.admit({ startsWork: true });
 * if (!admission.admitted) return answer503(admission.reason, admission.retryAfterSeconds);
 * try { return await handle(); } finally { admission.done(); }
 */
export class LoadShedder {
  readonly #options: LoadShedderOptions;
  readonly #retryAfterSeconds: number;
  #underWay = 0;
  /** Refusals since the bound was last reached (0: not shedding). */
  #refusedInRow = 0;

  constructor(options: LoadShedderOptions) {
    this.#options = options;
    this.#retryAfterSeconds = options.retryAfterSeconds ?? 2;
  }

  /** Requests admitted and not yet `done`. */
  get requestsUnderWay(): number {
    return this.#underWay;
  }

  /** Admits a request, or refuses it (see the class). */
  admit(request: { startsWork: boolean }): Admission {
    const bound = this.#options.maxWaitingWork;
    const running = this.#options.runningTurns();
    const turns = request.startsWork ? running : 0;
    if (this.#underWay + turns >= bound) {
      const reason = request.startsWork
        ? `this process has ${this.#underWay} request(s) under way and ${turns} turn(s) running, at its bound of ${bound} (serve.maxWaitingWork)`
        : `this process has ${this.#underWay} request(s) under way, at its bound of ${bound} (serve.maxWaitingWork)`;
      if (this.#refusedInRow === 0) {
        this.#options.log?.(`switchyard serve: over its bound of waiting work, answering 503: ${reason}`);
      }
      this.#refusedInRow += 1;
      return { admitted: false, reason, retryAfterSeconds: this.#retryAfterSeconds };
    }
    if (this.#refusedInRow > 0 && this.#underWay + running < bound * 0.9) {
      this.#options.log?.(
        `switchyard serve: taking requests again after answering ${this.#refusedInRow} with 503 (serve.maxWaitingWork ${bound})`,
      );
      this.#refusedInRow = 0;
    }
    this.#underWay += 1;
    let open = true;
    let counted = true;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      this.#underWay -= 1;
    };
    return {
      admitted: true,
      done: () => {
        open = false;
        uncount();
      },
      awaitClient: async (waiting) => {
        uncount();
        try {
          return await waiting;
        } finally {
          // Admitted already: it counts again whatever the bound says now (unless it was done).
          if (open && !counted) {
            counted = true;
            this.#underWay += 1;
          }
        }
      },
    };
  }
}
