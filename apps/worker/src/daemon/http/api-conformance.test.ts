import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openForSuite } from '../../__fixtures__/open-for-suite';
import { summarySchema } from '../../__fixtures__/summary-schema';
import { resolveAgent } from '../../config/resolve-agent';
import { buildToolManifest } from '../../tool-manifest';
import { rawRequest, waitFor } from '../__fixtures__/http-client';
import {
  ApiTestBed,
  READ_TOKEN,
  TOKEN,
  toolCallEndsOf,
  toolsConfig,
  writes,
} from './__fixtures__/api-test-bed';

// The daemon's HTTP API in process on embedded PGlite, with the fake Responses server as the model
// (`ApiTestBed`): every route's live answers are checked against the OpenAPI document the daemon
// serves (itself checked against the OpenAPI 3.1 schema), resource by resource, errors included,
// until every operation of the document was exercised. The tests run in order on one daemon: the
// turns started for the approvals are the ones the turns' paging reads.

const api = openForSuite(() => ApiTestBed.open());
/** The turn whose held call was denied, and the one cancelled while it waited: the turns paged. */
let turnId: string;
let doomedId: string;

describe('the daemon’s HTTP API: the document and every request’s checks', () => {
  it('serves a valid OpenAPI 3.1 document; /healthz, the tokens and the framework’s own failures answer as it says', async () => {
    const { call, daemon, openapi, document } = api();
    const validity = await new Validator().validate(document as never);
    expect(validity).toEqual({ valid: true });

    expect((await call('getHealth', '/healthz', { token: null })).status).toBe(200);
    // Tokens: none is 401, the read-only token reads but cannot write.
    expect((await call('listTurns', '/v1/turns', { token: null })).status).toBe(401);
    expect((await call('listTurns', '/v1/turns', { token: READ_TOKEN })).status).toBe(200);
    const readOnly = await call('startTurn', '/v1/turns', { body: { prompt: 'hi' }, token: READ_TOKEN });
    expect(readOnly).toMatchObject({ status: 403, body: { error: { code: 'read_only_token' } } });
    // The framework's own failures keep the error shape.
    const invalid = await call('startTurn', '/v1/turns', { body: { prompt: '', agent: 'nobody', extra: 1 } });
    expect(invalid).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_body', fields: ['prompt', 'agent', 'extra'] } },
    });
    expect(String((invalid.body.error as { message: string }).message)).toContain(
      "this daemon serves 'ops', 'hasty'",
    );
    expect((await call('startTurn', '/v1/turns', { rawBody: '{"prompt":' })).body).toMatchObject({
      error: { code: 'invalid_json' },
    });
    expect((await call('startTurn', '/v1/turns', { body: { prompt: 'x'.repeat(70_000) } })).status).toBe(413);
    const notJson = await call('startTurn', '/v1/turns', {
      rawBody: 'prompt=hi',
      headers: { 'content-type': 'text/plain' },
    });
    expect(notJson).toMatchObject({ status: 415, body: { error: { code: 'unsupported_media_type' } } });
    // A foreign Host is refused before anything else (fetch cannot send another Host: node:http can).
    const misdirected = await rawRequest(daemon.url, '/v1/turns', {
      headers: { host: 'evil.example:80', authorization: `Bearer ${TOKEN}` },
    });
    expect(misdirected.status).toBe(421);
    expect(openapi.validateResponse(JSON.parse(misdirected.text), 'listTurns', 421).valid).toBe(true);
  });
});

describe('the daemon’s HTTP API: approvals', () => {
  it('holds a destructive call for its approval, and a denial reaches the model; the turn’s events show the hold', async () => {
    const { call, daemon, checked } = api();
    // A destructive call asks: the turn waits, its approval is listed, a denial reaches the model.
    const started = await call('startTurn', '/v1/turns', { body: { prompt: 'WRITE denied-note' } });
    expect(started.status).toBe(202);
    turnId = String(started.body.id);
    expect(started.headers.get('location')).toBe(`/v1/turns/${turnId}`);
    const pending = await waitFor('the approval', async () => {
      const listed = await call('listApprovals', `/v1/approvals?turn=${turnId}`);
      return (listed.body.approvals as Array<Record<string, unknown>>)[0];
    });
    expect(pending).toMatchObject({
      turnId,
      agent: 'ops',
      source: 'api',
      toolKey: 'write_note',
      activity: 'Writing denied-note',
      arguments: { name: 'denied-note' },
      approvers: ['release-manager'],
      status: 'pending',
    });
    expect((await call('getTurn', `/v1/turns/${turnId}`)).body.status).toBe('waiting-approval');
    const approvalId = String(pending.id);
    expect((await call('getApproval', `/v1/approvals/${approvalId}`)).body.status).toBe('pending');
    expect((await call('getApprovalArguments', `/v1/approvals/${approvalId}/arguments`)).body).toEqual({
      id: approvalId,
      argumentsBytes: Buffer.byteLength(JSON.stringify({ name: 'denied-note' })),
      arguments: { name: 'denied-note' },
    });
    expect((await call('getApprovalArguments', '/v1/approvals/approval_none/arguments')).status).toBe(404);
    expect(
      (await call('answerApproval', `/v1/approvals/${approvalId}`, { body: { decision: 'maybe' } })).status,
    ).toBe(400);
    const denied = await call('answerApproval', `/v1/approvals/${approvalId}`, {
      body: { decision: 'deny', reason: 'not during the freeze' },
    });
    expect(denied).toMatchObject({ status: 200, body: { status: 'denied', answeredBy: 'api' } });
    const again = await call('answerApproval', `/v1/approvals/${approvalId}`, {
      body: { decision: 'allow' },
    });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'already_decided' } } });
    expect((await call('getApproval', '/v1/approvals/approval_none')).status).toBe(404);
    const ended = await waitFor('the denied turn to end', async () => {
      const turn = await call('getTurn', `/v1/turns/${turnId}`);
      return turn.body.status === 'completed' ? turn : undefined;
    });
    expect(ended.body.output).toBe('Result: Tool call denied: an operator denied it: not during the freeze');
    expect(writes.get('denied-note')).toBeUndefined();
    const events = await fetch(`${daemon.url}/v1/turns/${turnId}/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(events.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const stream = await events.text();
    const eventTypes = [...stream.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(eventTypes).toContain('approval-requested');
    expect(eventTypes).toContain('approval-resolved');
    expect(toolCallEndsOf(stream).map(({ outcome, isError }) => [outcome, isError])).toEqual([
      ['denied', true],
    ]);
    checked.add('getTurnEvents');
  });

  it('expires an unanswered approval as a denial the model reads', async () => {
    const { call } = api();
    // An unanswered approval expires as a denial the model reads.
    const hasty = await call('startTurn', '/v1/turns', {
      body: { prompt: 'WRITE late-note', agent: 'hasty' },
    });
    const expired = await waitFor(
      'the unanswered turn to end',
      async () => {
        const turn = await call('getTurn', `/v1/turns/${String(hasty.body.id)}`);
        return turn.body.status === 'completed' ? turn : undefined;
      },
      30_000,
    );
    expect(String(expired.body.output)).toMatch(
      /^Result: Tool call denied: its approval expired: nobody answered before it expired at \d{4}-.*; it was not run$/,
    );
    expect(writes.get('late-note')).toBeUndefined();
  });
});

describe('the daemon’s HTTP API: turns', () => {
  it('replays a turn recorded by an older worker in today’s outcomes, its stored log unchanged; 404 for no turn', async () => {
    const { call, daemon, controlPlane } = api();
    // A turn recorded by an older worker: a tool's error result and a throw ended `completed` with
    // isError and `error`; replayed, both are `tool-error`, and the stored log is left as it was.
    const legacyId = 'turn_recorded-before-one-outcome-set';
    const legacyEnd = (callId: string, outcome: string, isError: boolean) => ({
      type: 'tool-call-end',
      callId,
      name: 'write_note',
      outcome,
      activity: 'Writing old-note',
      durationMs: 4,
      isError,
      repairs: [],
      result: { content: isError ? 'disk full' : 'wrote old-note', ...(isError ? { isError } : {}) },
      endsTurn: false,
    });
    const usage = {
      inputTokens: 1,
      cachedInputTokens: 0,
      outputTokens: 1,
      reasoningTokens: 0,
      totalTokens: 2,
    };
    await controlPlane.turns.recordStart({
      id: legacyId,
      // Not 'ops': the paging check below lists that agent's API turns.
      agentId: 'hasty',
      source: 'api',
      prompt: 'WRITE old-note',
      workerId: 'worker_older',
    });
    const legacyLog = [
      legacyEnd('call_result', 'completed', true),
      legacyEnd('call_threw', 'error', true),
      legacyEnd('call_fine', 'completed', false),
      { type: 'turn-end', status: 'completed', iterations: 2, usage },
    ];
    await controlPlane.turns.recordEnd({
      id: legacyId,
      status: 'completed',
      output: 'done',
      usage,
      iterations: 2,
      events: legacyLog,
    });
    const replayed = await fetch(`${daemon.url}/v1/turns/${legacyId}/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(toolCallEndsOf(await replayed.text()).map(({ callId, outcome }) => [callId, outcome])).toEqual([
      ['call_result', 'tool-error'],
      ['call_threw', 'tool-error'],
      ['call_fine', 'completed'],
    ]);
    expect((await controlPlane.turns.events(legacyId))?.events).toEqual(legacyLog);
    expect((await call('getTurn', '/v1/turns/turn_nope')).status).toBe(404);
  });

  it('cancels a waiting turn (202, its approval cancelled), then answers 409', async () => {
    const { call } = api();
    // Cancelling a waiting turn: 202, its approval cancelled, and then 409.
    const doomed = await call('startTurn', '/v1/turns', { body: { prompt: 'WRITE cancelled-note' } });
    doomedId = String(doomed.body.id);
    await waitFor('the doomed turn to wait', async () =>
      (await call('getTurn', `/v1/turns/${doomedId}`)).body.status === 'waiting-approval' ? true : undefined,
    );
    expect((await call('cancelTurn', `/v1/turns/${doomedId}/cancel`, { method: 'POST' })).status).toBe(202);
    const cancelled = await waitFor('the cancelled turn to end', async () => {
      const turn = await call('getTurn', `/v1/turns/${doomedId}`);
      return turn.body.status === 'aborted' ? turn : undefined;
    });
    expect(cancelled.body.error).toBe('cancelled through the API');
    expect((await call('cancelTurn', `/v1/turns/${doomedId}/cancel`, { method: 'POST' })).status).toBe(409);
    expect(
      (await call('listApprovals', `/v1/approvals?turn=${doomedId}&status=cancelled`)).body.approvals,
    ).toMatchObject([{ status: 'cancelled', reason: 'the turn ended before it was answered' }]);
  });

  it('pages the turns with the cursor, one per page, none twice; refuses a bad status or cursor', async () => {
    const { call } = api();
    // Paging: one turn per page, each page's cursor leads to the next, no turn twice.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(
        'listTurns',
        `/v1/turns?agent=ops&source=api&limit=1${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      );
      seen.push(...(page.body.turns as Array<{ id: string }>).map((turn) => turn.id));
      cursor = page.body.nextCursor as string | undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual([doomedId, turnId]);
    expect((await call('listTurns', '/v1/turns?status=sleeping')).body).toMatchObject({
      error: { code: 'invalid_query', fields: ['status'] },
    });
    expect((await call('listTurns', '/v1/turns?cursor=nonsense')).body).toMatchObject({
      error: { fields: ['cursor'] },
    });
  });
});

describe('the daemon’s HTTP API: workflows', () => {
  it('checks a workflow as the workflow tool does, then starts, lists, reads and cancels it', async () => {
    const { call } = api();
    // Workflows: the spec is checked as the workflow tool's is, then started, listed, read, cancelled.
    const refused = await call('startWorkflow', '/v1/workflows', {
      body: {
        name: 'bad',
        tasks: [{ id: 'a', prompt: 'TASK a', resultSchema: summarySchema, dependsOn: ['ghost'] }],
      },
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_body', fields: ['tasks[0].dependsOn'] } },
    });
    const workflow = await call('startWorkflow', '/v1/workflows', {
      body: {
        name: 'to cancel',
        tasks: [{ id: 'a', prompt: 'TASK cancelled-task', resultSchema: summarySchema }],
      },
    });
    expect(workflow).toMatchObject({
      status: 201,
      body: { agent: 'ops', name: 'to cancel', status: 'running' },
    });
    const workflowId = String(workflow.body.id);
    expect((await call('listWorkflows', '/v1/workflows')).body.workflows).toContainEqual(
      expect.objectContaining({ id: workflowId, agent: 'ops' }),
    );
    expect((await call('getWorkflow', `/v1/workflows/${workflowId}`)).body.tasks).toHaveLength(1);
    expect((await call('getWorkflow', '/v1/workflows/00000000-0000-0000-0000-000000000000')).status).toBe(
      404,
    );
    expect(
      (await call('cancelWorkflow', `/v1/workflows/${workflowId}/cancel`, { method: 'POST' })).body.status,
    ).toBe('cancelled');
  });
});

describe('the daemon’s HTTP API: events', () => {
  it('answers the live feed as an event stream; another method is a 405 naming the one allowed', async () => {
    const { daemon, checked } = api();
    // The live feed answers as an event stream.
    const feed = new AbortController();
    const feedAnswer = await fetch(`${daemon.url}/v1/events`, {
      headers: { authorization: `Bearer ${READ_TOKEN}` },
      signal: feed.signal,
    });
    expect(feedAnswer.status).toBe(200);
    expect(feedAnswer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    feed.abort();
    checked.add('getEvents');
    const wrong = await fetch(`${daemon.url}/v1/approvals`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });
});

describe('the daemon’s HTTP API: session', () => {
  it('says which token was used and the agents served', async () => {
    const { call } = api();
    // What the console reads first: which token was used, the agents served.
    expect((await call('getSession', '/v1/session')).body).toEqual({
      access: 'full',
      agents: ['ops', 'hasty'],
      defaultAgent: 'ops',
      version: expect.any(String),
      continueAnsweredWithinMs: expect.any(Number),
    });
    expect((await call('getSession', '/v1/session', { token: READ_TOKEN })).body.access).toBe('read-only');
    expect((await call('getSession', '/v1/session', { token: null })).status).toBe(401);
  });
});

describe('the daemon’s HTTP API: schedules', () => {
  it('lists the schedules with their recent runs, the turn a fire ran included', async () => {
    const { call, controlPlane } = api();
    // Schedules with their recent runs: one fires (ticked by hand) and the daemon runs its turn.
    const schedule = await controlPlane.schedules.createSchedule({
      agentId: 'hasty',
      name: 'hourly check',
      prompt: 'scheduled check',
      cron: '0 * * * *',
      timeZone: 'Europe/Paris',
    });
    const finished = await controlPlane.schedules.createSchedule({
      agentId: 'hasty',
      name: 'done',
      prompt: 'cancelled one',
      runAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await controlPlane.schedules.cancelSchedule({ agentId: 'hasty', scheduleId: finished.id });
    const slot = Date.parse(schedule.nextFireTimes[0] ?? '');
    await controlPlane.scheduler.tick({ now: new Date(slot + 1_000) });
    const listed = await waitFor('the scheduled turn to be recorded with its run', async () => {
      const answer = await call('listSchedules', '/v1/schedules?agent=hasty', { token: READ_TOKEN });
      const items = answer.body.items as Array<
        Record<string, unknown> & { runs: Array<Record<string, unknown>> }
      >;
      return items[0]?.runs[0]?.turnId === undefined ? undefined : items;
    });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: schedule.id,
      agent: 'hasty',
      name: 'hourly check',
      status: 'active',
      kind: 'cron',
      cron: '0 * * * *',
      timeZone: 'Europe/Paris',
      prompt: 'scheduled check',
      // In the schedule's zone, with its offset (computed from the real clock, not the tick's).
      nextFireTimes: schedule.nextFireTimes,
    });
    expect(listed[0]?.runs).toHaveLength(1);
    expect(listed[0]?.runs[0]).toMatchObject({ slot: new Date(slot).toISOString() });
    const scheduledTurn = await call('getTurn', `/v1/turns/${String(listed[0]?.runs[0]?.turnId)}`);
    // The turn names its schedule by id and name: its own `sourceId` is the run's.
    expect(scheduledTurn.body).toMatchObject({
      agent: 'hasty',
      source: 'schedule',
      title: 'scheduled check',
      origin: { schedule: { id: schedule.id, name: 'hourly check' } },
    });
    expect((scheduledTurn.body.origin as { scheduleRunId?: string }).scheduleRunId).toBe(
      scheduledTurn.body.sourceId,
    );
    const listedTurns = await call('listTurns', '/v1/turns?agent=hasty&source=schedule');
    expect(listedTurns.body.turns).toEqual([
      expect.objectContaining({
        origin: { schedule: { id: schedule.id, name: 'hourly check' }, scheduleRunId: expect.any(String) },
      }),
    ]);
    const all = await call('listSchedules', '/v1/schedules?all=true');
    expect((all.body.items as Array<{ id: string }>).map((item) => item.id)).toEqual(
      expect.arrayContaining([schedule.id, finished.id]),
    );
    expect((await call('listSchedules', '/v1/schedules?agent=ops')).body).toEqual({ items: [] });
    const unknownAgent = await call('listSchedules', '/v1/schedules?agent=nobody');
    expect(unknownAgent).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_query', fields: ['agent'] } },
    });
    expect((await call('listSchedules', '/v1/schedules?all=yes')).body).toMatchObject({
      error: { fields: ['all'] },
    });
    expect((await call('listSchedules', '/v1/schedules', { token: null })).status).toBe(401);
  });
});

describe('the daemon’s HTTP API: tools', () => {
  it('answers the manifest the agent’s next text turn would send, as `switchyard tools --json` prints it', async () => {
    const { call } = api();
    // The manifest the agent's next text turn would send, the same as `switchyard tools --json`.
    const manifest = await call('listTools', '/v1/tools?agent=hasty', { token: READ_TOKEN });
    expect(manifest.status).toBe(200);
    const expected = buildToolManifest({
      config: toolsConfig,
      agent: resolveAgent(toolsConfig, 'hasty'),
      toolSearch: 'client',
    });
    expect(manifest.body).toEqual(JSON.parse(JSON.stringify(expected)));
    const keys = (manifest.body.tools as Array<{ key: string }>).map((row) => row.key);
    expect(keys).toEqual(expect.arrayContaining(['create_schedule', 'list_schedules', 'cancel_schedule']));
    expect(manifest.body.totals).toMatchObject({ tools: keys.length });
    expect((await call('listTools', '/v1/tools')).body.agent).toBe('ops');
    expect((await call('listTools', '/v1/tools?agent=nobody')).body).toMatchObject({
      error: { code: 'invalid_query', fields: ['agent'] },
    });
    expect((await call('listTools', '/v1/tools', { token: null })).status).toBe(401);
  });
});

describe('the daemon’s HTTP API: budgets', () => {
  it('answers 429 with Retry-After past an hourly limit, and an agent’s usage against each limit', async () => {
    const { call } = api();
    const body = {
      agent: 'hasty',
      name: 'once an hour',
      tasks: [{ id: 'a', prompt: 'TASK hasty', resultSchema: summarySchema }],
    };
    expect((await call('startWorkflow', '/v1/workflows', { body })).status).toBe(201);
    const refused = await call('startWorkflow', '/v1/workflows', { body: { ...body, name: 'twice' } });
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
    expect(String((refused.body.error as { message: string }).message)).toMatch(/workflowsPerHour/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const usage = await call('getAgentUsage', '/v1/agents/hasty/usage', { token: READ_TOKEN });
    expect(usage).toMatchObject({
      status: 200,
      body: {
        agent: 'hasty',
        startedLastHour: { workflows: { used: 1, limit: 1 }, schedules: { limit: 30 } },
        tokensLastDay: { limit: 50_000_000 },
        turnsAtOnce: { limit: 16 },
        tokensPerTurn: 2_000_000,
      },
    });
    // ops ran turns above: their tokens were recorded as each response came.
    const ops = await call('getAgentUsage', '/v1/agents/ops/usage');
    expect((ops.body.tokensLastDay as { used: number }).used).toBeGreaterThan(0);
    expect((await call('getAgentUsage', '/v1/agents/nobody/usage')).status).toBe(404);
    expect((await call('getAgentUsage', '/v1/agents/ops/usage', { token: null })).status).toBe(401);
  });
});

describe('the daemon’s HTTP API: the Brain (read-only)', () => {
  it('lists, shows and searches the pages of the agents served, to the read-only token too', async () => {
    const { call, controlPlane } = api();
    const { brain } = controlPlane;
    const first = await brain.remember({
      agentId: 'hasty',
      title: 'Quotes',
      body: 'Acme: 410 EUR.',
      tags: ['suppliers'],
    });
    await brain.remember({
      agentId: 'hasty',
      pageId: first.page.pageId,
      title: 'Quotes',
      body: 'Acme: 420 EUR.',
      tags: ['suppliers'],
    });
    const gone = await brain.remember({ agentId: 'hasty', title: 'Old', body: 'Forgotten.' });
    await brain.forget({ agentId: 'hasty', pageId: gone.page.pageId });
    const stranger = await brain.remember({ agentId: 'stranger', title: 'Not served', body: 'Acme.' });
    const listed = await call('listBrainPages', '/v1/brain/pages?agent=hasty', { token: READ_TOKEN });
    expect(listed.body.pages).toEqual([
      expect.objectContaining({ pageId: first.page.pageId, agent: 'hasty', version: 2, archivedAt: null }),
    ]);
    const all = await call('listBrainPages', '/v1/brain/pages?agent=hasty&all=true&limit=1');
    expect((all.body.pages as unknown[]).length).toBe(1);
    expect((await call('listBrainPages', '/v1/brain/pages?agent=hasty&all=true')).body.pages).toHaveLength(2);
    // Without `agent`: the default agent's (ops has none).
    expect((await call('listBrainPages', '/v1/brain/pages')).body).toEqual({ pages: [] });
    expect((await call('listBrainPages', '/v1/brain/pages?agent=stranger')).body).toMatchObject({
      error: { code: 'invalid_query', fields: ['agent'] },
    });
    const shown = await call('getBrainPage', `/v1/brain/pages/${first.page.pageId}`, { token: READ_TOKEN });
    expect(shown.body).toMatchObject({
      agent: 'hasty',
      body: 'Acme: 420 EUR.',
      version: 2,
      latestVersion: 2,
    });
    expect((shown.body.versions as Array<{ version: number }>).map((version) => version.version)).toEqual([
      1, 2,
    ]);
    // Another agent's page is not this daemon's to show.
    expect((await call('getBrainPage', `/v1/brain/pages/${stranger.page.pageId}`)).status).toBe(404);
    const found = await call('searchBrain', '/v1/brain/search?agent=hasty&query=Acme&tag=suppliers', {
      token: READ_TOKEN,
    });
    expect(found.body.hits).toEqual([
      expect.objectContaining({ pageId: first.page.pageId, everyTerm: true }),
    ]);
    const twoTags = await call(
      'searchBrain',
      '/v1/brain/search?agent=hasty&query=Acme&tag=suppliers&tag=other',
    );
    expect(twoTags.status).toBe(200);
    const refused = await call('searchBrain', `/v1/brain/search?agent=hasty&query=${'x'.repeat(3000)}`);
    expect(refused).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_query', fields: ['query'] } },
    });
    const badTag = await call(
      'searchBrain',
      `/v1/brain/search?agent=hasty&query=Acme&tag=${'t'.repeat(200)}`,
    );
    expect(badTag).toMatchObject({ status: 400, body: { error: { fields: ['tag'] } } });
    expect((await call('searchBrain', '/v1/brain/search?agent=hasty')).status).toBe(400);
    expect((await call('listBrainPages', '/v1/brain/pages', { token: null })).status).toBe(401);
  });
});

describe('the daemon’s HTTP API: the whole document', () => {
  it('had every operation exercised by the tests above', async () => {
    const { checked, openapi } = api();
    // Every operation of the document was exercised.
    const operations = openapi.getOperations().map((operation) => operation.operationId);
    expect([...checked].toSorted()).toEqual(operations.toSorted());
  });
});
