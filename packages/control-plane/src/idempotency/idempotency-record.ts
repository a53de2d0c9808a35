/** What a request with an `Idempotency-Key` creates: a turn (`POST /v1/turns`) or a workflow (`POST /v1/workflows`). */
export type IdempotentOperation = 'start-turn' | 'start-workflow';

/** The first answer to a request with an `Idempotency-Key`, stored to be sent again for a retry. */
export interface StoredAnswer {
  /** The HTTP status. */
  status: number;
  /** Response headers to send again (`location`, ...), lower-case names. */
  headers: Record<string, string>;
  /** The response body exactly as it was sent (JSON text). */
  body: string;
}

/** What `IdempotencyStore.claim` takes. */
export interface ClaimIdempotencyKeyRequest {
  /** The agent the request acts for: keys are scoped per agent (and operation). */
  agentId: string;
  /** What the request creates: keys are scoped per operation too. */
  operation: IdempotentOperation;
  /** The key as the client sent it (unquoted): 1 to 255 printable ASCII characters. */
  key: string;
  /** A digest of the request (its body): a later request with this key must carry the same one. */
  fingerprint: string;
  /**
   * The id the resource gets if this claim is new (a fresh turn id, a fresh workflow key). A claim
   * that is taken over keeps the id the first claim chose.
   */
  resourceId: string;
  /** The process that claims (the turn records' worker id): named in the claim, for the log. */
  workerId: string;
  /** How long a claim may go unanswered before a retry takes it over, in ms. Default 10 000. */
  staleAfterMs?: number;
  /**
   * Claims of any other worker count as stale at once: on embedded PGlite, which one process opens
   * at a time, another worker's claim is a dead process's. Default false.
   */
  othersAreGone?: boolean;
  /** How long the key is kept, in ms, from its first claim. Default 24 hours. */
  expiresInMs?: number;
}

/** The fence a claim holder answers or releases with: the key's scope and its claim's number. */
export interface IdempotencyClaimFence {
  /** The agent. */
  agentId: string;
  /** The operation. */
  operation: IdempotentOperation;
  /** The key. */
  key: string;
  /** Which claim of the key this is (1, then 2 after a takeover, ...). */
  claim: number;
}

/** What `IdempotencyStore.claim` found. */
export type IdempotencyClaim =
  | {
      /**
       * `claimed`: this request goes on. Create the resource under `resourceId` (it may exist already
       * when `takenOver`: a process that claimed before died, or is slow, after creating it), then
       * `answer` with the fence, or `release` it when nothing could be created.
       */
      outcome: 'claimed';
      /** The id the resource is created under. */
      resourceId: string;
      /**
       * An earlier claim of the key is continued: one released by its request, or one that went
       * unanswered too long (its process died, or is slow). Its resource may exist already.
       */
      takenOver: boolean;
      /** What `answer` and `release` take. */
      fence: IdempotencyClaimFence;
    }
  | {
      /** `answered`: the first request with this key was answered: send `answer` again. */
      outcome: 'answered';
      /** The stored first answer. */
      answer: StoredAnswer;
      /** The id of the resource the key created. */
      resourceId: string;
    }
  | {
      /** `in-progress`: another request with this key is being answered now (HTTP 409). */
      outcome: 'in-progress';
      /** When that claim was made (ISO 8601). */
      claimedAt: string;
      /** When it counts as stale and a retry takes it over (ISO 8601). */
      staleAt: string;
    }
  | {
      /** `mismatch`: the key was used with another request (HTTP 422). */
      outcome: 'mismatch';
    };
