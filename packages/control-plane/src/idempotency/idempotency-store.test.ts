import { randomUUID } from 'node:crypto';
import { testBackends } from '@switchyard/test-databases';
import { rejectionOf } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { type ClaimIdempotencyKeyRequest, ControlPlaneInputError } from '../index';

// Idempotency-Key claims on both backends: what the daemon's POST /v1/turns and POST /v1/workflows
// do with a key (claim, create, answer), what a retry finds (the first answer, a claim in progress,
// another request's key), and what becomes of a claim whose process died or gave up.

const P = 'worker-p';
const Q = 'worker-q';

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: Idempotency-Key claims`, () => {
    const suite = useControlPlane(backend, { maxValueBytes: 4096 });
    const store = () => suite.controlPlane.idempotency;
    /** A claim of a fresh key (unless `key` is given) for turn starts of 'ada' by worker P. */
    const claimOf = (overrides: Partial<ClaimIdempotencyKeyRequest> = {}): ClaimIdempotencyKeyRequest => ({
      agentId: 'ada',
      operation: 'start-turn',
      key: `key-${randomUUID()}`,
      fingerprint: 'sha256:aaaa',
      resourceId: `turn_${randomUUID()}`,
      workerId: P,
      ...overrides,
    });
    const answerOf = (body: unknown) => ({
      status: 202,
      headers: { Location: '/v1/turns/turn_1' },
      body: JSON.stringify(body),
    });

    it('claims a new key once: a second request with it is in progress until the first answer, then gets that answer', async () => {
      const request = claimOf();
      const first = await store().claim(request);
      expect(first).toEqual({
        outcome: 'claimed',
        resourceId: request.resourceId,
        takenOver: false,
        fence: { agentId: 'ada', operation: 'start-turn', key: request.key, claim: 1 },
      });
      if (first.outcome !== 'claimed') return;

      const retry = { ...request, resourceId: `turn_${randomUUID()}` };
      const during = await store().claim(retry);
      expect(during.outcome).toBe('in-progress');
      if (during.outcome === 'in-progress') {
        // The claim counts as stale 10 s after it was made (the default).
        expect(Date.parse(during.staleAt) - Date.parse(during.claimedAt)).toBe(10_000);
      }

      // The body is kept as its exact text (a jsonb column would reorder its keys).
      const body = { status: 'running', id: request.resourceId, agent: 'ada' };
      expect(await store().answer(first.fence, answerOf(body))).toBe(true);
      const after = await store().claim(retry);
      expect(after).toEqual({
        outcome: 'answered',
        resourceId: request.resourceId,
        answer: {
          status: 202,
          headers: { location: '/v1/turns/turn_1' },
          body: `{"status":"running","id":"${request.resourceId}","agent":"ada"}`,
        },
      });
      // Answered once: a second answer of the same claim stores nothing.
      expect(await store().answer(first.fence, answerOf({ other: true }))).toBe(false);
    });

    it('refuses the key with another fingerprint, whether claimed or answered', async () => {
      const request = claimOf();
      const first = await store().claim(request);
      if (first.outcome !== 'claimed') throw new Error(`expected a claim, got ${first.outcome}`);
      expect(await store().claim({ ...request, fingerprint: 'sha256:bbbb' })).toEqual({
        outcome: 'mismatch',
      });
      await store().answer(first.fence, answerOf({ id: 1 }));
      expect(await store().claim({ ...request, fingerprint: 'sha256:bbbb' })).toEqual({
        outcome: 'mismatch',
      });
      // Even a stale claim or a released one is not taken over by another request.
      const stale = claimOf();
      await store().claim(stale);
      expect(
        await store().claim({ ...stale, fingerprint: 'sha256:bbbb', staleAfterMs: 0, workerId: Q }),
      ).toEqual({ outcome: 'mismatch' });
    });

    it('scopes keys by agent and by operation', async () => {
      const request = claimOf();
      await store().claim(request);
      for (const other of [{ agentId: 'bob' }, { operation: 'start-workflow' as const }]) {
        const claimed = await store().claim({ ...request, ...other, fingerprint: 'sha256:cccc' });
        expect(claimed.outcome).toBe('claimed');
      }
    });

    it('lets one of many simultaneous claims of a key through', async () => {
      const request = claimOf();
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          store().claim({ ...request, resourceId: `turn_${index}`, workerId: index % 2 === 0 ? P : Q }),
        ),
      );
      const claimed = outcomes.filter((outcome) => outcome.outcome === 'claimed');
      expect(claimed).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.outcome === 'in-progress')).toHaveLength(11);
      const rows = await suite.rows<{ resource_id: string; claims: number }>(
        'SELECT resource_id, claims FROM switchyard.idempotency_keys WHERE key = $1',
        [request.key],
      );
      expect(rows).toEqual([{ resource_id: claimed[0]?.resourceId, claims: 1 }]);
    });

    it('takes over a stale claim with its resource id, and fences the late answer of the first claim', async () => {
      const request = claimOf();
      const first = await store().claim(request);
      if (first.outcome !== 'claimed') throw new Error(`expected a claim, got ${first.outcome}`);
      const retry = { ...request, resourceId: `turn_${randomUUID()}`, workerId: Q };
      // Fresh: in progress. Unanswered past staleAfterMs: the retry goes on with the first id.
      expect((await store().claim(retry)).outcome).toBe('in-progress');
      const second = await store().claim({ ...retry, staleAfterMs: 0 });
      expect(second).toEqual({
        outcome: 'claimed',
        resourceId: request.resourceId,
        takenOver: true,
        fence: { ...first.fence, claim: 2 },
      });
      if (second.outcome !== 'claimed') return;
      expect(await store().answer(first.fence, answerOf({ by: 'p' }))).toBe(false);
      expect(await store().answer(second.fence, answerOf({ by: 'q' }))).toBe(true);
      const replay = await store().claim(request);
      expect(replay.outcome === 'answered' && replay.answer.body).toBe('{"by":"q"}');
    });

    it('counts another worker’s claim as stale at once where other workers are gone (embedded PGlite)', async () => {
      const request = claimOf();
      await store().claim(request);
      // The same worker's own fresh claim stays in progress.
      expect((await store().claim({ ...request, othersAreGone: true })).outcome).toBe('in-progress');
      const taken = await store().claim({ ...request, workerId: Q, othersAreGone: true });
      expect(taken.outcome === 'claimed' && taken.takenOver).toBe(true);
      expect(taken.outcome === 'claimed' && taken.resourceId).toBe(request.resourceId);
    });

    it('gives a released claim to the next request at once, keeping the resource id', async () => {
      const request = claimOf();
      const first = await store().claim(request);
      if (first.outcome !== 'claimed') throw new Error(`expected a claim, got ${first.outcome}`);
      expect(await store().release(first.fence)).toBe(true);
      const next = await store().claim({ ...request, resourceId: 'turn_other' });
      expect(next).toMatchObject({ outcome: 'claimed', resourceId: request.resourceId, takenOver: true });
      // The first claim's fence no longer holds anything.
      expect(await store().release(first.fence)).toBe(false);
    });

    it('forgets a key after its lifetime: the next request is new, and the sweep deletes the row', async () => {
      const request = claimOf({ expiresInMs: 1 });
      const first = await store().claim(request);
      if (first.outcome !== 'claimed') throw new Error(`expected a claim, got ${first.outcome}`);
      await store().answer(first.fence, answerOf({ id: 'old' }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      const fresh = await store().claim({ ...request, fingerprint: 'sha256:dddd', resourceId: 'turn_new' });
      expect(fresh).toMatchObject({ outcome: 'claimed', resourceId: 'turn_new', takenOver: false });
      expect(fresh.outcome === 'claimed' && fresh.fence.claim).toBe(1);

      const swept = claimOf({ expiresInMs: 1 });
      await store().claim(swept);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store().sweepExpired()).toBeGreaterThanOrEqual(2);
      const left = await suite.rows('SELECT 1 FROM switchyard.idempotency_keys WHERE key = ANY($1)', [
        [request.key, swept.key],
      ]);
      expect(left).toEqual([]);
    });

    it('keeps claims and answers across a restart', async () => {
      const request = claimOf();
      const first = await store().claim(request);
      if (first.outcome !== 'claimed') throw new Error(`expected a claim, got ${first.outcome}`);
      await store().answer(first.fence, answerOf({ kept: true }));
      await suite.controlPlane.close();
      await suite.reopen();
      const replay = await store().claim(request);
      expect(replay.outcome === 'answered' && replay.answer.body).toBe('{"kept":true}');
    });

    it('refuses bad keys, fingerprints and answers before writing anything', async () => {
      const field = async (work: () => Promise<unknown>) =>
        (await rejectionOf(work, ControlPlaneInputError)).field;
      expect(await field(() => store().claim(claimOf({ key: 'k'.repeat(256) })))).toBe('key');
      expect(await field(() => store().claim(claimOf({ key: '' })))).toBe('key');
      expect(await field(() => store().claim(claimOf({ key: 'caf\u00e9' })))).toBe('key');
      expect(await field(() => store().claim(claimOf({ fingerprint: 'not a digest' })))).toBe('fingerprint');
      expect(await field(() => store().claim(claimOf({ agentId: 'no spaces' })))).toBe('agentId');
      expect(await field(() => store().claim(claimOf({ operation: 'delete' as never })))).toBe('operation');
      expect(await field(() => store().claim(claimOf({ staleAfterMs: -1 })))).toBe('staleAfterMs');

      const request = claimOf();
      const first = await store().claim(request);
      if (first.outcome !== 'claimed') throw new Error(`expected a claim, got ${first.outcome}`);
      expect(await field(() => store().answer(first.fence, { ...answerOf({}), status: 99 }))).toBe('status');
      // Over the control plane's maxValueBytes (4 KiB in this suite).
      expect(await field(() => store().answer(first.fence, answerOf({ big: 'x'.repeat(5000) })))).toBe(
        'body',
      );
      expect(
        await suite.rows('SELECT status FROM switchyard.idempotency_keys WHERE key = $1', [request.key]),
      ).toEqual([{ status: 'claimed' }]);
    });
  });
}
