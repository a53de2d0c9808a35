import { testBackends } from '@switchyard/test-databases';
import { beforeAll, describe, expect, it } from 'vitest';
import { useControlPlane } from '../__fixtures__/control-plane-suite';
import { until } from '../__fixtures__/until';
import { startWorkflow, summaryTask, uniqueTurnId } from '../__fixtures__/work-fixtures';
import type { TurnEndStatus, WorkTurn, WorkTurnContext } from '../index';

type WorkflowTaskTurn = Extract<WorkTurn, { kind: 'workflow-task' }>;

import { queryControlPlane } from '../testing';

// Approvals of held calls, on both backends: what a worker daemon does when a policy asks about a
// call (`request`), what an operator does (`answer`), and what another worker does when the one
// running the turn is gone (`claimResumable`, `consume`), with the unit of a task turn detached from
// its queue job meanwhile and settled by the turn's end.

const ZERO = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 };
const P = 'worker-p';
const Q = 'worker-q';

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: approvals of held calls`, () => {
    // A short expiry and maintenance: a unit still riding on its job would be delivered again.
    const suite = useControlPlane(backend, {
      workTurns: {
        pollingIntervalSeconds: 0.5,
        retryLimit: 1,
        expireInSeconds: 1,
        cancelCheckIntervalMs: 50,
      },
      maintenanceIntervalSeconds: 1,
    });
    let onWorkTurn: (turn: WorkTurn, context: WorkTurnContext) => Promise<{ output?: string } | undefined> =
      async () => undefined;
    const deliveries: Array<{ taskId: string; attempt: number }> = [];

    /** Records an API turn of 'ada' as worker P's daemon does before running it; returns its id. */
    const startApiTurn = async (label: string) => {
      const id = uniqueTurnId(label);
      await suite.controlPlane.turns.recordStart({
        id,
        agentId: 'ada',
        source: 'api',
        prompt: 'p',
        workerId: P,
      });
      return id;
    };
    /** Records the turn of a delivered task's attempt as worker P's daemon does; returns its id. */
    const startTaskTurn = async (label: string, turn: WorkflowTaskTurn, attempt: number) => {
      const id = uniqueTurnId(label);
      await suite.controlPlane.turns.recordStart({
        id,
        agentId: 'ada',
        source: 'task',
        sourceId: `${turn.workflowId}/${turn.taskId}`,
        attempt,
        prompt: turn.prompt,
        workerId: P,
      });
      return id;
    };
    /** Records how a turn ended (no usage), as the daemon does when the loop returns. */
    const endTurn = (id: string, status: TurnEndStatus, output = '', iterations = 1) =>
      suite.controlPlane.turns.recordEnd({ id, status, output, usage: ZERO, iterations });
    const hold = (turnId: string, callId: string, expiresInMs = 60_000) =>
      suite.controlPlane.approvals.request({
        turnId,
        workerId: P,
        callId,
        toolKey: 'write_file',
        activity: `Writing ${callId}.txt`,
        arguments: { path: `${callId}.txt`, content: 'x' },
        approvers: ['operator'],
        expiresInMs,
        checkpoint: { items: [{ type: 'message', role: 'user', content: 'hi' }], note: callId },
      });

    beforeAll(async () => {
      await suite.controlPlane.workTurns.work(
        (turn, context) => {
          if (turn.kind === 'workflow-task')
            deliveries.push({ taskId: turn.taskId, attempt: context.attempt });
          return onWorkTurn(turn, context);
        },
        { agentId: 'ada', concurrency: 2 },
      );
    });

    it('holds an API turn’s call, is answered once, and the decision is acted on once, by the turn’s worker', async () => {
      const turnId = await startApiTurn('api');
      const approval = await hold(turnId, 'a');
      expect(approval).toMatchObject({
        id: expect.stringMatching(/^approval_/),
        turnId,
        callId: 'a',
        agentId: 'ada',
        source: 'api',
        toolKey: 'write_file',
        activity: 'Writing a.txt',
        arguments: { path: 'a.txt', content: 'x' },
        approvers: ['operator'],
        status: 'pending',
      });
      expect(Date.parse(approval.expiresAt) - Date.parse(approval.createdAt)).toBe(60_000);
      // Asked again for the same call (a continued turn): the same approval.
      expect((await hold(turnId, 'a')).id).toBe(approval.id);
      expect((await suite.controlPlane.turns.get(turnId))?.status).toBe('waiting-approval');
      // Only the worker running the turn holds its calls.
      await expect(
        suite.controlPlane.approvals.request({
          turnId,
          workerId: Q,
          callId: 'b',
          toolKey: 'x',
          activity: 'x',
          arguments: {},
          approvers: ['operator'],
          expiresInMs: 60_000,
          checkpoint: {},
        }),
      ).rejects.toThrow(/^turnId: turn '.*' is waiting-approval on worker worker-p/);
      expect(await suite.controlPlane.approvals.consume({ id: approval.id, workerId: P })).toBeUndefined();

      const answered = await suite.controlPlane.approvals.answer({
        id: approval.id,
        decision: 'allow',
        reason: 'looks fine',
        answeredBy: 'cli:ops',
      });
      expect(answered).toMatchObject({
        status: 'answered',
        approval: { status: 'allowed', reason: 'looks fine', answeredBy: 'cli:ops' },
      });
      const again = await suite.controlPlane.approvals.answer({
        id: approval.id,
        decision: 'deny',
        answeredBy: 'api',
      });
      expect(again).toMatchObject({ status: 'already-decided', approval: { status: 'allowed' } });
      expect(
        await suite.controlPlane.approvals.answer({
          id: 'approval_00000000-0000-0000-0000-000000000000',
          decision: 'allow',
          answeredBy: 'api',
        }),
      ).toBeUndefined();
      await expect(
        suite.controlPlane.approvals.answer({
          id: approval.id,
          decision: 'maybe' as 'allow',
          answeredBy: 'api',
        }),
      ).rejects.toThrow(/^decision: /);

      // Another worker cannot act on it; the turn's worker can, once; then the turn runs again.
      expect(await suite.controlPlane.approvals.consume({ id: approval.id, workerId: Q })).toBeUndefined();
      expect(await suite.controlPlane.approvals.consume({ id: approval.id, workerId: P })).toMatchObject({
        status: 'allowed',
        consumedBy: P,
      });
      expect(await suite.controlPlane.approvals.consume({ id: approval.id, workerId: P })).toBeUndefined();
      expect((await suite.controlPlane.turns.get(turnId))?.status).toBe('running');
      await endTurn(turnId, 'completed', 'ok');
    });

    it('keys a held call by its item in the transcript: one call, one approval, exactly its arguments', async () => {
      const turnId = await startApiTurn('keys');
      const holdAt = (callIndex: number, callId: string, args: unknown, toolKey = 'write_file') =>
        suite.controlPlane.approvals.request({
          turnId,
          workerId: P,
          callId,
          callIndex,
          toolKey,
          activity: 'Writing',
          arguments: args,
          approvers: ['operator'],
          expiresInMs: 60_000,
          checkpoint: {},
        });
      const first = await holdAt(1, 'call_1', { path: 'a.txt', content: 'x' });
      expect(first).toMatchObject({
        callId: 'call_1',
        callIndex: 1,
        arguments: { path: 'a.txt', content: 'x' },
      });
      // The same call asked again (a continued turn): the same approval.
      expect((await holdAt(1, 'call_1', { content: 'x', path: 'a.txt' })).id).toBe(first.id);
      // Anything else under its key is refused, naming what differs.
      await expect(holdAt(1, 'call_1', { path: 'b.txt', content: 'x' })).rejects.toThrow(
        /^arguments: differ from those the approval recorded for this call holds \(approval_/,
      );
      await expect(holdAt(1, 'call_1', { path: 'a.txt', content: 'x' }, 'run_command')).rejects.toThrow(
        /^toolKey: /,
      );
      await expect(holdAt(1, 'call_2', { path: 'a.txt', content: 'x' })).rejects.toThrow(/^callId: /);
      await expect(holdAt(-1, 'call_1', {})).rejects.toThrow(/^callIndex: /);
      // The endpoint reused the call id in a later response: another call, another approval.
      const later = await holdAt(3, 'call_1', { path: 'b.txt', content: 'y' });
      expect(later.id).not.toBe(first.id);
      expect(later).toMatchObject({
        callId: 'call_1',
        callIndex: 3,
        arguments: { path: 'b.txt', content: 'y' },
      });
      const [pendingLater, pendingFirst] = await suite.controlPlane.approvals.list({
        turnId,
        status: 'pending',
      });
      expect([pendingLater?.id, pendingFirst?.id]).toEqual([later.id, first.id]);
      await endTurn(turnId, 'completed');
    });

    it('stores large arguments whole: lists show their size, head and tail, and get has them all', async () => {
      const turnId = await startApiTurn('large');
      // A harmless start, 100 KiB of spaces, and a tail a preview that kept only the start would hide.
      const command = `echo hello${' '.repeat(100 * 1024)}; rm -rf ~/важное`;
      const approval = await suite.controlPlane.approvals.request({
        turnId,
        workerId: P,
        callId: 'call_big',
        callIndex: 1,
        toolKey: 'run_command',
        activity: 'Running `echo hello …`',
        arguments: { command },
        approvers: ['operator'],
        expiresInMs: 60_000,
        checkpoint: {},
      });
      const text = JSON.stringify({ command });
      expect(approval.arguments).toEqual({ command });
      expect(approval.argumentsBytes).toBe(Buffer.byteLength(text));
      expect((await suite.controlPlane.approvals.get(approval.id))?.arguments).toEqual({ command });
      const [listed] = await suite.controlPlane.approvals.list({ turnId });
      expect(listed?.arguments).toBeUndefined();
      expect(listed?.argumentsBytes).toBe(Buffer.byteLength(text));
      expect(listed?.argumentsPreview?.head).toBe(text.slice(0, 4096));
      expect(listed?.argumentsPreview?.tail.endsWith('; rm -rf ~/важное"}')).toBe(true);
      expect(Buffer.byteLength(listed?.argumentsPreview?.tail ?? '')).toBeLessThanOrEqual(4096);
      expect(Buffer.byteLength(listed?.argumentsPreview?.tail ?? '')).toBeGreaterThan(4090);
      // Small arguments come whole in lists, without a preview.
      const small = await hold(turnId, 'small');
      const [smallListed] = await suite.controlPlane.approvals.list({ turnId, status: 'pending' });
      expect(smallListed).toMatchObject({ id: small.id, arguments: small.arguments });
      expect(smallListed?.argumentsPreview).toBeUndefined();
      // What cannot be stored whole is refused, never kept as a preview.
      const refuse = (args: unknown) =>
        suite.controlPlane.approvals.request({
          turnId,
          workerId: P,
          callId: 'call_refused',
          callIndex: 5,
          toolKey: 'run_command',
          activity: 'Running',
          arguments: args,
          approvers: ['operator'],
          expiresInMs: 60_000,
          checkpoint: {},
        });
      await expect(refuse({ command: 'x'.repeat(17 * 1024 * 1024) })).rejects.toThrow(
        /^arguments: cannot be stored whole for an operator to see/,
      );
      await expect(refuse({ command: 'a\u0000b' })).rejects.toThrow(/^arguments: .*NUL/);
      await endTurn(turnId, 'completed');
    });

    it('records the file a held write_file replaces with its approval, and refuses one of another shape', async () => {
      const turnId = await startApiTurn('file-before');
      const holdWith = (callId: string, callIndex: number, fileBefore: unknown) =>
        suite.controlPlane.approvals.request({
          turnId,
          workerId: P,
          callId,
          callIndex,
          toolKey: 'write_file',
          activity: `Writing ${callId}.txt`,
          arguments: { path: `${callId}.txt`, content: 'new\n' },
          approvers: ['operator'],
          expiresInMs: 60_000,
          checkpoint: {},
          fileBefore: fileBefore as never,
        });
      const text = { path: 'a.txt', state: 'text', text: 'old ✓\n', bytes: Buffer.byteLength('old ✓\n') };
      const recorded = await holdWith('a', 1, text);
      expect(recorded.fileBefore).toEqual(text);
      expect((await suite.controlPlane.approvals.get(recorded.id))?.fileBefore).toEqual(text);
      const cut = { path: 'b.txt', state: 'cut', text: 'head', bytes: 200_000 };
      const binary = { path: 'c.png', state: 'binary', bytes: 12 };
      await holdWith('b', 2, cut);
      await holdWith('c', 3, binary);
      const listed = await suite.controlPlane.approvals.list({ turnId });
      const byCall = new Map(listed.map((approval) => [approval.callId, approval.fileBefore]));
      expect([byCall.get('a'), byCall.get('b'), byCall.get('c')]).toEqual([text, cut, binary]);
      // A call without one records none.
      expect((await hold(turnId, 'plain')).fileBefore).toBeUndefined();
      for (const [bad, field] of [
        [{ path: 'x', state: 'text', text: 'abc', bytes: 4 }, 'fileBefore.bytes'],
        [{ path: 'x', state: 'cut', text: 'abc', bytes: 3 }, 'fileBefore.bytes'],
        [{ path: 'x', state: 'text', text: 'a\u0000b', bytes: 3 }, 'fileBefore.text'],
        [
          { path: 'x', state: 'text', text: 'x'.repeat(64 * 1024 + 1), bytes: 64 * 1024 + 1 },
          'fileBefore.text',
        ],
        [{ path: 'x', state: 'gone' }, 'fileBefore.state'],
        [{ state: 'missing' }, 'fileBefore.path'],
        ['old text', 'fileBefore'],
      ] as const) {
        await expect(holdWith('bad', 9, bad)).rejects.toThrow(new RegExp(`^${field.replace('.', '\\.')}: `));
      }
      // Nothing of the refused requests was stored.
      const callIds = (await suite.controlPlane.approvals.list({ turnId })).map(
        (approval) => approval.callId,
      );
      expect(callIds.sort()).toEqual(['a', 'b', 'c', 'plain']);
      await endTurn(turnId, 'completed');
    });

    it('expires an unanswered approval as a denial, and cancels the pending ones of a turn that ended', async () => {
      const turnId = await startApiTurn('expiring');
      const soon = await hold(turnId, 'soon', 1_000);
      const later = await hold(turnId, 'later');
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const answered = await suite.controlPlane.approvals.answer({
        id: soon.id,
        decision: 'allow',
        answeredBy: 'api',
      });
      expect(answered).toMatchObject({
        status: 'already-decided',
        approval: {
          status: 'expired',
          reason: expect.stringMatching(/^nobody answered before it expired at \d{4}-/),
        },
      });
      expect(await suite.controlPlane.approvals.expireDue()).toEqual([]);
      await endTurn(turnId, 'aborted');
      expect(await suite.controlPlane.approvals.get(later.id)).toMatchObject({
        status: 'cancelled',
        reason: 'the turn ended before it was answered',
      });
      const listed = await suite.controlPlane.approvals.list({ turnId });
      expect(listed.map((entry) => entry.callId)).toEqual(['later', 'soon']);
      expect(
        (await suite.controlPlane.approvals.list({ turnId, status: 'expired' })).map((entry) => entry.id),
      ).toEqual([soon.id]);
    });

    it('detaches a held task from its queue job, lets another worker continue the released turn once answered, and settles the task at its end', async () => {
      let held: { turnId: string; attempt: number } | undefined;
      let releaseHandler: () => void = () => {};
      onWorkTurn = async (turn, { attempt }) => {
        if (turn.kind !== 'workflow-task') return undefined;
        const turnId = await startTaskTurn(`task${attempt}`, turn, attempt);
        held = { turnId, attempt };
        // The worker holds the delivery while its turn waits (as a daemon's handler would, until the
        // turn detaches), then returns: the queue must not settle the detached task.
        await new Promise<void>((resolve) => {
          releaseHandler = resolve;
        });
        return undefined;
      };
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'held', [
        summaryTask('deploy', { prompt: 'deploy' }),
      ]);
      const { turnId } = (await until('the task turn to start', async () => held, Boolean)) as {
        turnId: string;
      };
      const jobsBefore = await queryControlPlane<{ job_id: string }>(
        suite.controlPlane,
        "SELECT job_id FROM switchyard.workflow_tasks WHERE workflow_id = $1 AND task_id = 'deploy'",
        [workflow.id],
      );
      const approval = await hold(turnId, 'deploy-call');
      const jobsAfter = await queryControlPlane<{ job_id: string }>(
        suite.controlPlane,
        "SELECT job_id FROM switchyard.workflow_tasks WHERE workflow_id = $1 AND task_id = 'deploy'",
        [workflow.id],
      );
      expect(jobsAfter.rows[0]?.job_id).not.toBe(jobsBefore.rows[0]?.job_id);
      const { rows: jobStates } = await queryControlPlane<{ state: string }>(
        suite.controlPlane,
        'SELECT state FROM pgboss.job WHERE id = $1',
        [jobsBefore.rows[0]?.job_id],
      );
      expect(jobStates[0]?.state).toBe('cancelled');
      // The delivery returns; the queue leaves the detached task running (not failed "without a result").
      releaseHandler();
      // Past the queue's 1 s expiry and maintenance: the task is not delivered again while it waits.
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      expect(deliveries.filter((entry) => entry.taskId === 'deploy')).toEqual([
        { taskId: 'deploy', attempt: 1 },
      ]);
      expect(
        (await suite.controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId: workflow.id }))
          ?.tasks[0],
      ).toMatchObject({
        status: 'running',
        attempts: 1,
      });

      // The worker shuts down: it lets the turn go with its latest checkpoint.
      expect(
        await suite.controlPlane.approvals.release({
          turnId,
          workerId: P,
          checkpoint: { items: [], note: 'latest' },
        }),
      ).toBe(true);
      // Not claimable while its approval is pending, even released.
      expect(
        await suite.controlPlane.approvals.claimResumable({ workerId: Q, staleAfterMs: 60_000 }),
      ).toEqual([]);
      await suite.controlPlane.approvals.answer({ id: approval.id, decision: 'allow', answeredBy: 'api' });
      const [claimedByQ, claimedByR] = await Promise.all([
        suite.controlPlane.approvals.claimResumable({ workerId: Q, staleAfterMs: 60_000 }),
        suite.controlPlane.approvals.claimResumable({ workerId: 'worker-r', staleAfterMs: 60_000 }),
      ]);
      // One of the two racing workers claims it, whichever it is.
      const claims = [...(claimedByQ ?? []), ...(claimedByR ?? [])];
      expect(claims).toHaveLength(1);
      const claimer = claimedByQ?.length === 1 ? Q : 'worker-r';
      expect(claims[0]).toMatchObject({
        turn: { id: turnId, status: 'running', workerId: claimer, attempt: 1 },
        checkpoint: { items: [], note: 'latest' },
        unitDetached: true,
        approvals: [{ id: approval.id, status: 'allowed' }],
      });
      // The old worker can no longer act on the decision; the claimer can.
      expect(await suite.controlPlane.approvals.consume({ id: approval.id, workerId: P })).toBeUndefined();
      expect(
        await suite.controlPlane.approvals.consume({ id: approval.id, workerId: claimer }),
      ).toMatchObject({
        consumedBy: claimer,
      });

      // The continued turn stores the result with the same attempt, and its end settles the task.
      expect(
        await suite.controlPlane.workTurns.submitResult({
          target: { kind: 'workflow-task', workflowId: workflow.id, taskId: 'deploy' },
          attempt: 1,
          result: { summary: 'deployed once' },
        }),
      ).toEqual({ status: 'stored' });
      expect(await endTurn(turnId, 'ended-by-tool', '', 2)).toBe(true);
      const shown = await suite.controlPlane.workflows.showWorkflow({
        agentId: 'ada',
        workflowId: workflow.id,
      });
      expect(shown).toMatchObject({
        status: 'completed',
        tasks: [{ status: 'completed', attempts: 1, result: { summary: 'deployed once' } }],
      });
    });

    it('settles a detached task whose turn ended without a result as failed, and one whose turn failed as its next attempt', async () => {
      const turnsByAttempt = new Map<string, string>();
      onWorkTurn = async (turn, { attempt }) => {
        if (turn.kind !== 'workflow-task') return undefined;
        const turnId = await startTaskTurn(`${turn.taskId}${attempt}`, turn, attempt);
        await hold(turnId, `${turn.taskId}-${attempt}`);
        // Known only once held: the held call detaches the unit, which the turn's end then settles.
        turnsByAttempt.set(`${turn.taskId}#${attempt}`, turnId);
        return undefined;
      };
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'settled', [
        summaryTask('quiet', { prompt: 'quiet' }),
        summaryTask('broken', { prompt: 'broken' }),
      ]);
      const quiet = await until('quiet to hold', async () => turnsByAttempt.get('quiet#1'), Boolean);
      const broken = await until('broken to hold', async () => turnsByAttempt.get('broken#1'), Boolean);
      await endTurn(quiet ?? '', 'completed', 'no result');
      await suite.controlPlane.turns.recordEnd({
        id: broken ?? '',
        status: 'failed',
        output: '',
        usage: ZERO,
        iterations: 1,
        error: 'model down',
      });
      // The failed one is delivered again as attempt 2, at once, on a new job.
      const second = await until('broken attempt 2', async () => turnsByAttempt.get('broken#2'), Boolean);
      const shown = await suite.controlPlane.workflows.showWorkflow({
        agentId: 'ada',
        workflowId: workflow.id,
      });
      expect(shown?.tasks).toMatchObject([
        {
          id: 'quiet',
          status: 'failed',
          error: 'the task turn ended without an accepted submit_result',
          attempts: 1,
        },
        { id: 'broken', status: 'running', attempts: 2 },
      ]);
      // The last attempt's failure fails the task with the reason.
      await suite.controlPlane.turns.recordEnd({
        id: second ?? '',
        status: 'aborted',
        output: '',
        usage: ZERO,
        iterations: 0,
        error: 'cancelled at shutdown',
      });
      expect(
        (await suite.controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId: workflow.id }))
          ?.tasks[1],
      ).toMatchObject({
        status: 'failed',
        error: "the turn ended 'aborted': cancelled at shutdown (the last of 2 attempts)",
      });
    });

    it('tells a waiting turn’s worker to stop when its cancellation is asked for or its workflow is cancelled', async () => {
      let turnId: string | undefined;
      onWorkTurn = async (turn, { attempt }) => {
        if (turn.kind !== 'workflow-task') return undefined;
        const id = await startTaskTurn('cancelled', turn, attempt);
        await hold(id, 'c');
        turnId = id;
        return undefined;
      };
      const workflow = await startWorkflow(suite.controlPlane, 'ada', 'to cancel', [
        summaryTask('one', { prompt: 'one' }),
      ]);
      const id = (await until('the turn to hold', async () => turnId, Boolean)) ?? '';
      const apiTurn = await startApiTurn('api');
      expect(await suite.controlPlane.turns.heartbeat([id, apiTurn])).toEqual({ stop: [] });
      expect(
        await suite.controlPlane.turns.requestCancel(apiTurn, 'the operator cancelled it'),
      ).toMatchObject({
        status: 'running',
        cancelRequested: 'the operator cancelled it',
      });
      await suite.controlPlane.workflows.cancelWorkflow({ agentId: 'ada', workflowId: workflow.id });
      const { stop } = await suite.controlPlane.turns.heartbeat([id, apiTurn]);
      expect(stop.toSorted((a, b) => a.id.localeCompare(b.id))).toEqual(
        [
          { id, reason: 'cancelled' },
          { id: apiTurn, reason: 'the operator cancelled it' },
        ].toSorted((a, b) => a.id.localeCompare(b.id)),
      );
      // A released waiting turn whose cancellation is asked for is claimed to be ended, answered or not.
      await suite.controlPlane.approvals.release({ turnId: id, workerId: P, checkpoint: {} });
      await suite.controlPlane.turns.requestCancel(id, 'stop it');
      const [claimed] = await suite.controlPlane.approvals.claimResumable({
        workerId: Q,
        staleAfterMs: 60_000,
      });
      expect(claimed).toMatchObject({
        turn: { id },
        cancelRequested: 'stop it',
        approvals: [{ status: 'pending' }],
      });
      await suite.controlPlane.turns.recordEnd({
        id,
        status: 'aborted',
        output: '',
        usage: ZERO,
        iterations: 0,
        error: 'stop it',
      });
      await endTurn(apiTurn, 'aborted', '', 0);
      expect((await suite.controlPlane.turns.get(id))?.cancelRequested).toBeUndefined();
    });

    it('pages turns newest first with a cursor, and feeds changes since a time', async () => {
      const ids: string[] = [];
      const since = (
        await suite.controlPlane.turns.changes({ since: new Date(0).toISOString(), agentIds: ['pager'] })
      ).now;
      for (let index = 0; index < 5; index += 1) {
        const id = uniqueTurnId('page');
        ids.push(id);
        await suite.controlPlane.turns.recordStart({
          id,
          agentId: 'pager',
          source: 'api',
          prompt: `p${index}`,
          workerId: P,
        });
      }
      const first = await suite.controlPlane.turns.page({ agentIds: ['pager'], limit: 2 });
      expect(first.turns.map((turn) => turn.id)).toEqual([ids[4], ids[3]]);
      const second = await suite.controlPlane.turns.page({
        agentIds: ['pager'],
        limit: 2,
        ...(first.next ? { before: first.next } : {}),
      });
      expect(second.turns.map((turn) => turn.id)).toEqual([ids[2], ids[1]]);
      const third = await suite.controlPlane.turns.page({
        agentIds: ['pager'],
        limit: 2,
        ...(second.next ? { before: second.next } : {}),
      });
      expect(third).toEqual({ turns: [expect.objectContaining({ id: ids[0] })] });
      expect((await suite.controlPlane.turns.page({ source: 'task', agentIds: ['pager'] })).turns).toEqual(
        [],
      );
      await expect(suite.controlPlane.turns.page({ source: 'web' as 'api' })).rejects.toThrow(/^source: /);
      const changes = await suite.controlPlane.turns.changes({ since, agentIds: ['pager'] });
      expect(changes.turns.map((turn) => turn.id)).toEqual(ids);
      await endTurn(ids[2] ?? '', 'completed');
      const later = await suite.controlPlane.turns.changes({ since: changes.now, agentIds: ['pager'] });
      expect(later.turns.at(-1)).toMatchObject({ id: ids[2], status: 'completed' });
      // Anything else is a change from the very instant of `now`, given again rather than lost.
      for (const turn of later.turns.slice(0, -1)) expect(turn.updatedAt).toBe(changes.now);
    });
  });
}
