import { queryControlPlane } from '@switchyard/control-plane/testing';
import createClient from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import type { paths } from '../../../../console/src/api/openapi-types';
import { openForSuite } from '../../__fixtures__/open-for-suite';
import { summarySchema } from '../../__fixtures__/summary-schema';
import { waitFor } from '../__fixtures__/http-client';
import { ApiTestBed, openEvents, READ_TOKEN, TOKEN } from './__fixtures__/api-test-bed';

// A client typed from the committed document (`openapi-fetch`, through the console's generated
// types) against the daemon in process on embedded PGlite (`ApiTestBed`): it starts a workflow with
// an Idempotency-Key, follows `/v1/events`, allows the task turn's held `submit_result`, and reads
// the result stored once.

describe('the daemon’s HTTP API through a client typed from its document', () => {
  const api = openForSuite(() => ApiTestBed.open());

  it('a client typed from the document starts a workflow, follows events, answers the approval and reads the stored result', async () => {
    const { daemon, controlPlane } = api();
    const client = createClient<paths>({
      baseUrl: daemon.url,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    // Follow every turn and approval from before the workflow starts, until its task turn ended (its
    // submit_result ends it). Other tests' turns may show up too: only this workflow's count.
    let workflowId = '';
    const stream = await openEvents(`${daemon.url}/v1/events?agent=ops`, READ_TOKEN);
    const followed = stream.read(
      (message) =>
        message.event === 'turn' &&
        workflowId !== '' &&
        String(message.data.sourceId ?? '').startsWith(workflowId) &&
        message.data.status === 'ended-by-tool',
    );
    const started = await client.POST('/v1/workflows', {
      body: {
        name: 'release check',
        tasks: [{ id: 'check', prompt: 'TASK release', resultSchema: summarySchema }],
      },
      headers: { 'idempotency-key': 'release-check-1' },
    });
    expect(started.response.status).toBe(201);
    workflowId = started.data?.id ?? '';
    // The same key again: the same workflow, not a second one.
    const retried = await client.POST('/v1/workflows', {
      body: {
        name: 'release check',
        tasks: [{ id: 'check', prompt: 'TASK release', resultSchema: summarySchema }],
      },
      headers: { 'idempotency-key': 'release-check-1' },
    });
    expect(retried.data?.id).toBe(workflowId);
    const approval = await waitFor('the task turn’s approval', async () => {
      const listed = await client.GET('/v1/approvals', {
        params: { query: { agent: 'ops', status: 'pending' } },
      });
      return listed.data?.approvals.find(
        (entry) =>
          entry.source === 'task' &&
          entry.toolKey === 'submit_result' &&
          (entry.arguments as { summary?: string }).summary === 'release checked',
      );
    });
    expect(approval.arguments).toEqual({ summary: 'release checked' });
    const answeredAt = Date.now();
    const answered = await client.POST('/v1/approvals/{id}', {
      params: { path: { id: approval.id } },
      body: { decision: 'allow', reason: 'release approved' },
    });
    expect(answered.data?.status).toBe('allowed');
    const done = await waitFor('the workflow to complete', async () => {
      const shown = await client.GET('/v1/workflows/{id}', { params: { path: { id: workflowId } } });
      return shown.data?.status === 'completed' ? shown.data : undefined;
    });
    console.info(`answered to stored, in the process holding the turn: ${Date.now() - answeredAt} ms`);
    expect(done.tasks).toEqual([
      {
        id: 'check',
        status: 'completed',
        dependsOn: [],
        result: { summary: 'release checked' },
        error: null,
        attempts: 1,
      },
    ]);
    const messages = await followed;
    const approvalStates = messages
      .filter((message) => message.event === 'approval' && message.data.id === approval.id)
      .map((message) => message.data.status)
      // An allowed approval is sent again once its call consumed it (its `consumedAt` set).
      .filter((status, index, all) => status !== all[index - 1]);
    expect(approvalStates).toEqual(['pending', 'allowed']);
    const turnStates = messages
      .filter((message) => message.event === 'turn' && message.data.id === approval.turnId)
      .map((message) => message.data.status);
    expect(turnStates).toEqual(['running', 'waiting-approval', 'running', 'ended-by-tool']);
    const toolEnds = messages.filter(
      (message) =>
        message.event === 'turn-event' &&
        (message.data.event as { type: string; name?: string }).type === 'tool-call-end' &&
        message.data.turnId === approval.turnId,
    );
    expect(toolEnds.map((message) => (message.data.event as { outcome: string }).outcome)).toEqual([
      'completed',
    ]);
    // Stored once.
    const { rows } = await queryControlPlane(
      controlPlane,
      'SELECT result FROM switchyard.task_results WHERE workflow_id = $1',
      [workflowId],
    );
    expect(rows).toEqual([{ result: { summary: 'release checked' } }]);
  });
});
