import type { ApprovalRecord } from '@switchyard/control-plane';
import { describe, expect, it } from 'vitest';
import { testControlPlaneForSuite } from '../__fixtures__/test-control-plane';
import { requestWriteApproval } from './__fixtures__/held-call';
import { ApprovalDecisionWaiters } from './approval-decision-waiters';

// Held calls waiting for their decisions, on a real control plane (PGlite): answered by any process
// (read at the next poll), by this one (at once), expired, or abandoned when the turn is aborted.

const WORKER = 'worker_waiting';

const bed = testControlPlaneForSuite();
let turnNumber = 0;

/** A pending approval of a call of a new turn of this worker, expiring after `expiresInMs`. */
async function pendingApproval(expiresInMs = 60_000): Promise<ApprovalRecord> {
  turnNumber += 1;
  const turnId = `turn_waiting_${turnNumber}`;
  await bed.controlPlane.turns.recordStart({
    id: turnId,
    agentId: 'ada',
    source: 'api',
    prompt: 'go',
    workerId: WORKER,
  });
  return requestWriteApproval(bed.controlPlane.approvals, {
    turnId,
    workerId: WORKER,
    callId: 'call_1',
    callIndex: 1,
    activity: 'Writing',
    arguments: { path: 'x' },
    expiresInMs,
  });
}

/** Settles with what `promise` resolves to, or `'still waiting'` after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('waiting for an approval’s decision (PGlite)', () => {
  it('reads a decision made by another process at its next poll', async () => {
    const waiters = new ApprovalDecisionWaiters({ store: bed.controlPlane.approvals, pollMs: 20 });
    const approval = await pendingApproval();
    const decided = waiters.wait(approval, new AbortController().signal);
    expect(waiters.size).toBe(1);
    await bed.controlPlane.approvals.answer({ id: approval.id, decision: 'allow', answeredBy: 'elsewhere' });
    expect(await within(decided, 30_000)).toMatchObject({ id: approval.id, status: 'allowed' });
    expect(waiters.size).toBe(0);
  });

  it('goes on at once with a decision this process made, without polling', async () => {
    const waiters = new ApprovalDecisionWaiters({ store: bed.controlPlane.approvals, pollMs: 600_000 });
    const approval = await pendingApproval();
    const decided = waiters.wait(approval, new AbortController().signal);
    // A pending record changes nothing.
    waiters.notify(approval);
    expect(await within(decided, 50)).toBe('still waiting');
    const answer = await bed.controlPlane.approvals.answer({
      id: approval.id,
      decision: 'deny',
      answeredBy: 'here',
    });
    waiters.notify(answer?.approval as ApprovalRecord);
    expect(await within(decided, 5_000)).toMatchObject({ id: approval.id, status: 'denied' });
    waiters.stop();
  });

  it('expires an approval nobody answered in time, and resolves with it', async () => {
    const waiters = new ApprovalDecisionWaiters({ store: bed.controlPlane.approvals, pollMs: 50 });
    const approval = await pendingApproval(1_000);
    expect(await within(waiters.wait(approval, new AbortController().signal), 30_000)).toMatchObject({
      id: approval.id,
      status: 'expired',
    });
  });

  it('resolves with nothing when the turn is aborted, and stops waiting for it', async () => {
    const waiters = new ApprovalDecisionWaiters({ store: bed.controlPlane.approvals, pollMs: 20 });
    const approval = await pendingApproval();
    const controller = new AbortController();
    const decided = waiters.wait(approval, controller.signal);
    controller.abort();
    expect(await within(decided, 5_000)).toBeUndefined();
    expect(waiters.size).toBe(0);
    // Already aborted: nothing waits.
    expect(await within(waiters.wait(approval, controller.signal), 5_000)).toBeUndefined();
    expect(waiters.size).toBe(0);
  });

  it('logs a read that failed and reads again at the next poll', async () => {
    let failures = 1;
    const lines: string[] = [];
    const waiters = new ApprovalDecisionWaiters({
      store: {
        expireDue: () => bed.controlPlane.approvals.expireDue(),
        getMany: async (ids) => {
          if (failures > 0) {
            failures -= 1;
            throw new Error('Connection terminated unexpectedly');
          }
          return bed.controlPlane.approvals.getMany(ids);
        },
      },
      pollMs: 20,
      log: (line) => lines.push(line),
    });
    const approval = await pendingApproval();
    await bed.controlPlane.approvals.answer({ id: approval.id, decision: 'allow', answeredBy: 'elsewhere' });
    expect(await within(waiters.wait(approval, new AbortController().signal), 30_000)).toMatchObject({
      status: 'allowed',
    });
    expect(lines).toEqual([
      "switchyard serve: could not check held calls' approvals: Connection terminated unexpectedly",
    ]);
  });
});
