import type { IdempotencyStore, IdempotentOperation, StoredAnswer } from '@switchyard/control-plane';

/** What `startIdempotently` takes. */
export interface IdempotentStartOptions {
  /** Where keys are claimed and first answers kept (`controlPlane.idempotency`). */
  store: Pick<IdempotencyStore, 'claim' | 'answer' | 'release'>;
  /** The agent the request acts for (the key's scope). */
  agentId: string;
  /** What the request creates (the key's scope). */
  operation: IdempotentOperation;
  /** The client's key (`readIdempotencyKey`). */
  key: string;
  /** The request's fingerprint (`requestFingerprint`). */
  fingerprint: string;
  /** This process's id in the records. */
  workerId: string;
  /** Another worker's claim is a dead process's (embedded PGlite: one process at a time). */
  othersAreGone: boolean;
  /** A fresh id for the resource, used if the key is new. */
  newResourceId(): string;
  /**
   * Creates the resource under `resourceId` and resolves with the answer to send. With
   * `takenOver`, an earlier claim of the key (released, or whose process died or is slow) may have
   * created it already: find it and answer with it, or create it; the resource's own unique key
   * keeps it to one. A rejection is answered as it is, after the claim is released.
   */
  create(resourceId: string, takenOver: boolean): Promise<StoredAnswer>;
  /** Receives one-line messages (a claim taken over, an answer that could not be stored). */
  log?: (line: string) => void;
}

/** What to answer a request with an `Idempotency-Key`. */
export type IdempotentStartOutcome =
  | {
      /** `answer`: send it (`replayed` when it is the stored first answer of an earlier request). */
      kind: 'answer';
      /** The status, headers and body text. */
      answer: StoredAnswer;
      /** Whether it was read back rather than made by this request. */
      replayed: boolean;
    }
  /** Another request with the key is being answered now: 409 with `Retry-After`. */
  | { kind: 'in-progress' }
  /** The key was used with another request body: 422. */
  | { kind: 'mismatch' };

/**
 * Answers a request that carries an `Idempotency-Key`: the first request with the key claims it,
 * creates its resource and stores its answer; a retry with the same body gets that answer again
 * (from any process on the control plane's database, before or after a restart); one that arrives
 * while the first is being answered gets `in-progress`; one with another body gets `mismatch`.
 *
 * A crash between the claim and the answer: the claim's resource id was fixed at the claim, so the
 * retry that takes the claim over (once it is stale; at once on embedded PGlite) creates the same
 * resource or finds it (`create` with `takenOver`), and its answer is the one kept: a turn as it is
 * recorded by then (an interrupted one, when its process died), never a second turn.
 *
 * Contract: `create` runs only under a claim this request holds. A `create` that rejects releases
 * the claim (the next request with the key goes on at once, keeping the resource id) and the
 * rejection is rethrown. An answer that cannot be stored is still returned (logged): the claim then
 * stays until it is stale and a retry takes it over.
 */
export async function startIdempotently(options: IdempotentStartOptions): Promise<IdempotentStartOutcome> {
  const claim = await options.store.claim({
    agentId: options.agentId,
    operation: options.operation,
    key: options.key,
    fingerprint: options.fingerprint,
    resourceId: options.newResourceId(),
    workerId: options.workerId,
    othersAreGone: options.othersAreGone,
  });
  if (claim.outcome === 'answered') return { kind: 'answer', answer: claim.answer, replayed: true };
  if (claim.outcome === 'in-progress') return { kind: 'in-progress' };
  if (claim.outcome === 'mismatch') return { kind: 'mismatch' };
  if (claim.takenOver) {
    options.log?.(
      `switchyard serve: Idempotency-Key '${options.key}' of agent ${options.agentId}: continuing an earlier claim (${options.operation} ${claim.resourceId}, claim ${claim.fence.claim})`,
    );
  }
  let answer: StoredAnswer;
  try {
    answer = await options.create(claim.resourceId, claim.takenOver);
  } catch (error) {
    await options.store
      .release(claim.fence)
      .catch((releaseError: unknown) =>
        options.log?.(
          `switchyard serve: Idempotency-Key '${options.key}': could not release its claim (a retry takes it over once it is stale): ${String(releaseError)}`,
        ),
      );
    throw error;
  }
  try {
    await options.store.answer(claim.fence, answer);
  } catch (error) {
    options.log?.(
      `switchyard serve: Idempotency-Key '${options.key}': the answer could not be stored (a retry takes the claim over once it is stale and finds ${claim.resourceId}): ${String(error)}`,
    );
  }
  return { kind: 'answer', answer, replayed: false };
}
