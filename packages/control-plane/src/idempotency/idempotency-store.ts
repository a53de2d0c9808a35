import type { Database } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import { checkStoredText } from '../values/check-stored-value';
import type {
  ClaimIdempotencyKeyRequest,
  IdempotencyClaim,
  IdempotencyClaimFence,
  IdempotentOperation,
  StoredAnswer,
} from './idempotency-record';

/** How long a key is kept from its first claim: a day, as the IETF draft's examples and most APIs keep them. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** How long a claim may go unanswered before a retry takes it over. */
const IDEMPOTENCY_CLAIM_STALE_MS = 10_000;
/** The longest key: the draft sets none; a UUID is 36 characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const OPERATIONS: ReadonlySet<string> = new Set<IdempotentOperation>(['start-turn', 'start-workflow']);
/** Printable ASCII: what a Structured Field string may hold. */
const KEY = /^[\x20-\x7e]+$/;
const FINGERPRINT = /^[A-Za-z0-9+/=_:-]{1,200}$/;
const MAX_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_HEADER_BYTES = 16 * 1024;
/** Rows deleted per `sweepExpired` call: the next call takes the rest. */
const SWEEP_BATCH = 500;

interface KeyRow {
  fingerprint: string;
  status: 'claimed' | 'released' | 'answered';
  resource_id: string;
  claimed_at: Date;
  stale_at: Date;
  expired: boolean;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

function checkOperation(value: unknown): IdempotentOperation {
  if (typeof value !== 'string' || !OPERATIONS.has(value)) {
    throw new ControlPlaneInputError('operation', `must be one of ${[...OPERATIONS].join(', ')}`);
  }
  return value as IdempotentOperation;
}

function checkKey(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !KEY.test(value)) {
    throw new ControlPlaneInputError(
      'key',
      `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`,
    );
  }
  return value;
}

function checkMilliseconds(field: string, value: unknown, fallback: number, minimum: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum || value > MAX_LIFETIME_MS) {
    throw new ControlPlaneInputError(
      field,
      `must be a number of milliseconds from ${minimum} to ${MAX_LIFETIME_MS}, got ${String(value)}`,
    );
  }
  return Math.round(value);
}

function checkFence(fence: IdempotencyClaimFence): unknown[] {
  const claim = fence.claim;
  if (!Number.isSafeInteger(claim) || claim < 1) {
    throw new ControlPlaneInputError('claim', `must be an integer >= 1, got ${String(claim)}`);
  }
  return [checkAgentId(fence.agentId), checkOperation(fence.operation), checkKey(fence.key), claim];
}

function checkAnswer(answer: StoredAnswer, maxBodyBytes: number): [number, string, string] {
  if (!Number.isInteger(answer.status) || answer.status < 100 || answer.status > 599) {
    throw new ControlPlaneInputError('status', `must be an HTTP status, got ${String(answer.status)}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers ?? {})) {
    if (typeof value !== 'string') throw new ControlPlaneInputError(`headers.${name}`, 'must be a string');
    headers[name.toLowerCase()] = value;
  }
  const headerText = checkStoredText('headers', JSON.stringify(headers), { maxBytes: MAX_HEADER_BYTES });
  const body = checkStoredText('body', answer.body, { maxBytes: maxBodyBytes, allowEmpty: true });
  return [answer.status, headerText, body];
}

/**
 * The HTTP API's `Idempotency-Key`s (draft-ietf-httpapi-idempotency-key-header): which request
 * claimed each key, what it was (a fingerprint) and its first answer, shared by every process on the
 * database, so a retry sent to any of them, or after a restart, gets the first answer instead of a
 * second turn or workflow.
 *
 * A request with a key `claim`s it (one statement: any process sees the claim at once), creates its
 * resource under the `resourceId` the claim returns, then `answer`s with the answer it sends. A
 * process that dies between the claim and the answer leaves the claim `claimed`: a retry after
 * `staleAfterMs` (on PGlite: at once, from another process) takes it over with the same
 * `resourceId`, finds the resource if it was created, or creates it; the resource's own unique key
 * (a turn's id, a workflow's idempotency key) keeps it to one, whichever process gets there.
 *
 * Contract: keys are scoped by agent and operation. Same key and fingerprint: `answered` with the
 * stored answer once there is one, `in-progress` while another claim is fresh; another fingerprint:
 * `mismatch`, whatever the key's state. A key is forgotten `expiresInMs` after its first claim (a
 * later claim starts afresh); `sweepExpired` deletes such rows. Bad input throws
 * `ControlPlaneInputError` naming the field, before anything is written.
 *
 * @example
 * const claim = await controlPlane.idempotency.claim({
 *   agentId: 'ada', operation: 'start-turn', key, fingerprint, resourceId: `turn_${randomUUID()}`, workerId,
 * });
 * if (claim.outcome === 'claimed') {
 *   const body = JSON.stringify(await startTurn(claim.resourceId));
 *   await controlPlane.idempotency.answer(claim.fence, { status: 202, headers: {}, body });
 * }
 */
export class IdempotencyStore {
  readonly #database: Database;
  readonly #maxBodyBytes: number;

  /** Use `controlPlane.idempotency` rather than constructing one. */
  constructor(database: Database, maxBodyBytes: number) {
    this.#database = database;
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** Claims a key for one request, or says what an earlier request with it left (see the class). */
  async claim(request: ClaimIdempotencyKeyRequest): Promise<IdempotencyClaim> {
    const agentId = checkAgentId(request.agentId);
    const operation = checkOperation(request.operation);
    const key = checkKey(request.key);
    if (typeof request.fingerprint !== 'string' || !FINGERPRINT.test(request.fingerprint)) {
      throw new ControlPlaneInputError(
        'fingerprint',
        'must be 1 to 200 characters of a digest (base64 or hex)',
      );
    }
    const resourceId = checkStoredText('resourceId', request.resourceId, { maxBytes: 200 });
    const workerId = checkStoredText('workerId', request.workerId, { maxBytes: 200 });
    const staleAfterMs = checkMilliseconds(
      'staleAfterMs',
      request.staleAfterMs,
      IDEMPOTENCY_CLAIM_STALE_MS,
      0,
    );
    const expiresInMs = checkMilliseconds('expiresInMs', request.expiresInMs, IDEMPOTENCY_KEY_LIFETIME_MS, 1);
    const othersAreGone = request.othersAreGone === true;
    const scope = [agentId, operation, key];
    // A row removed between the two statements (expired and swept) is claimed again; twice is plenty.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      // New, expired (forgotten: a fresh claim), released by its process, or a stale claim of the
      // same request (taken over, keeping its resource id): this request claims it. Anything else is
      // left as it is and read below.
      const { rows: claimed } = await this.#database.query<{ resource_id: string; claims: number }>(
        `INSERT INTO switchyard.idempotency_keys AS k
           (agent_id, operation, key, fingerprint, resource_id, claimed_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp() + $7::bigint * interval '1 millisecond')
         ON CONFLICT (agent_id, operation, key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint,
           resource_id = CASE WHEN k.expires_at <= clock_timestamp() THEN EXCLUDED.resource_id ELSE k.resource_id END,
           claims = CASE WHEN k.expires_at <= clock_timestamp() THEN 1 ELSE k.claims + 1 END,
           created_at = CASE WHEN k.expires_at <= clock_timestamp() THEN clock_timestamp() ELSE k.created_at END,
           expires_at = CASE WHEN k.expires_at <= clock_timestamp() THEN EXCLUDED.expires_at ELSE k.expires_at END,
           status = 'claimed', claimed_by = EXCLUDED.claimed_by, claimed_at = clock_timestamp(),
           response_status = NULL, response_headers = NULL, response_body = NULL, answered_at = NULL
         WHERE k.expires_at <= clock_timestamp()
            OR (k.fingerprint = EXCLUDED.fingerprint AND (k.status = 'released' OR (k.status = 'claimed'
                AND (k.claimed_at <= clock_timestamp() - $8::bigint * interval '1 millisecond'
                     OR ($9::boolean AND k.claimed_by <> EXCLUDED.claimed_by)))))
         RETURNING k.resource_id, k.claims`,
        [...scope, request.fingerprint, resourceId, workerId, expiresInMs, staleAfterMs, othersAreGone],
      );
      const mine = claimed[0];
      if (mine !== undefined) {
        return {
          outcome: 'claimed',
          resourceId: mine.resource_id,
          takenOver: mine.claims > 1,
          fence: { agentId, operation, key, claim: mine.claims },
        };
      }
      const { rows } = await this.#database.query<KeyRow>(
        `SELECT fingerprint, status, resource_id, claimed_at,
                claimed_at + $4::bigint * interval '1 millisecond' AS stale_at,
                expires_at <= clock_timestamp() AS expired,
                response_status, response_headers, response_body
           FROM switchyard.idempotency_keys WHERE agent_id = $1 AND operation = $2 AND key = $3`,
        [...scope, staleAfterMs],
      );
      const row = rows[0];
      if (row === undefined || row.expired) continue;
      if (row.fingerprint !== request.fingerprint) return { outcome: 'mismatch' };
      if (
        row.status === 'answered' &&
        row.response_status !== null &&
        row.response_headers !== null &&
        row.response_body !== null
      ) {
        return {
          outcome: 'answered',
          resourceId: row.resource_id,
          answer: { status: row.response_status, headers: row.response_headers, body: row.response_body },
        };
      }
      // Claimed, fresh (or released and claimed again by now): another request is being answered.
      return {
        outcome: 'in-progress',
        claimedAt: new Date(row.claimed_at).toISOString(),
        staleAt: new Date(row.stale_at).toISOString(),
      };
    }
    throw new Error(
      `the Idempotency-Key '${key}' of agent ${agentId} could not be claimed: it kept expiring`,
    );
  }

  /**
   * Stores the first answer of the request that holds the claim `fence`.
   *
   * Contract: resolves false, storing nothing, when the claim was taken over meanwhile (the
   * request's own answer may still be sent: the claim that took it over created, or found, the
   * same resource). Throws `ControlPlaneInputError` for a status that is not an HTTP status, a body
   * over the control plane's `maxValueBytes` or text PostgreSQL cannot store.
   */
  async answer(fence: IdempotencyClaimFence, answer: StoredAnswer): Promise<boolean> {
    const scope = checkFence(fence);
    const [status, headers, body] = checkAnswer(answer, this.#maxBodyBytes);
    const { rows } = await this.#database.query(
      `UPDATE switchyard.idempotency_keys
          SET status = 'answered', response_status = $5, response_headers = $6::jsonb, response_body = $7,
              answered_at = clock_timestamp()
        WHERE agent_id = $1 AND operation = $2 AND key = $3 AND claims = $4 AND status = 'claimed'
        RETURNING 1`,
      [...scope, status, headers, body],
    );
    return rows.length > 0;
  }

  /**
   * Lets go of a claim whose request created nothing (refused, or failed before its resource could be
   * stored): the next request with the key and the same fingerprint claims it at once, keeping the
   * resource id, so a resource created after all (a write whose answer was lost) is found, not made
   * twice. Resolves false when the claim was taken over or answered meanwhile.
   */
  async release(fence: IdempotencyClaimFence): Promise<boolean> {
    const { rows } = await this.#database.query(
      `UPDATE switchyard.idempotency_keys SET status = 'released'
        WHERE agent_id = $1 AND operation = $2 AND key = $3 AND claims = $4 AND status = 'claimed'
        RETURNING 1`,
      checkFence(fence),
    );
    return rows.length > 0;
  }

  /**
   * Deletes keys whose lifetime has passed, at most 500 a call (the oldest first); resolves with how
   * many. A daemon calls it now and then; a key that expired is already treated as new by `claim`,
   * so a late sweep changes no answer.
   */
  async sweepExpired(): Promise<number> {
    const { rows } = await this.#database.query(
      `DELETE FROM switchyard.idempotency_keys
        WHERE (agent_id, operation, key) IN (
          SELECT agent_id, operation, key FROM switchyard.idempotency_keys
           WHERE expires_at <= clock_timestamp() ORDER BY expires_at LIMIT $1)
        RETURNING 1`,
      [SWEEP_BATCH],
    );
    return rows.length;
  }
}
