import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { ControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import { defineWorkerTool, type ResponsesModel } from '@switchyard/core';
import { toolCallStep } from '@switchyard/testkit';
import OpenAPIBackend from 'openapi-backend';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { paths } from '../../../console/src/api/openapi-types';
import { promptOf } from '../__fixtures__/scripted-model';
import { summarySchema } from '../__fixtures__/summary-schema';
import { parseConfig } from '../config/load-config';
import { resolveAgent } from '../config/resolve-agent';
import type { ApprovalPolicy } from '../config/worker-config';
import { buildToolManifest } from '../tool-manifest';
import { DaemonTestBed } from './__fixtures__/daemon-test-bed';
import { type DaemonRequest, rawRequest, sendRequest, waitFor } from './__fixtures__/http-client';
import { toolCallThenAnswer } from './__fixtures__/turn-events';
import { ToolCallEndEventSchema } from './http/events/event-schemas';
import { type Daemon, startDaemon } from './start-daemon';
import { workTurnSource } from './work-source';

// The daemon's HTTP API in process on embedded PGlite, with the fake Responses server as the model:
// every route's live answers are checked against the OpenAPI document the daemon serves (itself
// checked against the OpenAPI 3.1 schema), and a client typed from that document drives a whole
// flow. Then a daemon lets a turn waiting for approval go at shutdown and another continues it.

const TOKEN = 'write-token-0123456789abcdef';
const READ_TOKEN = 'read-token-0123456789abcdef';
const ASK: ApprovalPolicy = parseConfig(
  {
    approvals: {
      destructive: 'ask',
      tools: { submit_result: 'ask' },
      expiresInSeconds: 600,
      approvers: ['release-manager'],
    },
  },
  { env: {} },
).approvals;
const POLICIES: Record<string, ApprovalPolicy> = {
  ops: ASK,
  hasty: { ...ASK, expiresInSeconds: 1 },
  relay: ASK,
};

/** The configuration `GET /v1/tools` composes its manifests from (homes are only named, never made). */
const toolsConfig = parseConfig(
  { categories: { schedule: {} } },
  { env: {}, baseDir: path.join(os.tmpdir(), 'switchyard-daemon-api-tools') },
);

/** Every execution of the destructive tool, by note name. */
const writes = new Map<string, number>();
const writeNote = defineWorkerTool({
  name: 'write_note',
  description: 'Write a note.',
  schema: z.object({ name: z.string() }),
  executionMode: 'sequential',
  isDestructive: true,
  describeActivity: ({ name }) => `Writing ${name}`,
  execute: ({ name }) => {
    writes.set(name, (writes.get(name) ?? 0) + 1);
    return { content: `wrote ${name}` };
  },
});

/**
 * Opens a server-sent event stream (resolves once the server answered, so nothing sent afterwards is
 * missed); `read(until)` collects events until `until` returns true for one, or the stream ends.
 */
async function openEvents(url: string, token: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const read = async (until: (event: { event: string; data: Record<string, unknown> }) => boolean) => {
    const events: Array<{ event: string; data: Record<string, unknown> }> = [];
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return events;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event === undefined || data === undefined) continue;
        const parsed = { event, data: JSON.parse(data) as Record<string, unknown> };
        events.push(parsed);
        if (until(parsed)) {
          // Not awaited: the server keeps the stream open; the connection is closed under it.
          reader.cancel().catch(() => {});
          return events;
        }
      }
    }
  };
  return { read };
}

/** The `tool-call-end` events of a whole event stream's text, each checked against the API's schema. */
function toolCallEndsOf(stream: string) {
  return [...stream.matchAll(/^event: tool-call-end\ndata: (.+)$/gm)].map((match) =>
    ToolCallEndEventSchema.parse(JSON.parse(match[1] ?? 'null')),
  );
}

describe('the daemon’s HTTP API (embedded PGlite, fake Responses server over HTTP)', () => {
  let bed: DaemonTestBed;
  let controlPlane: ControlPlane;
  let model: ResponsesModel;
  let daemon: Daemon;
  let document: Record<string, unknown>;
  let openapi: OpenAPIBackend;
  /** Operation ids whose live answers were checked against the document. */
  const checked = new Set<string>();

  /** Sends a request and checks its answer against the document's response for `operationId`. */
  const call = async (
    operationId: string,
    path: string,
    /** `token`: the bearer token, TOKEN by default, null for none. */
    init: DaemonRequest & { token?: string | null } = {},
  ) => {
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? TOKEN : init.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const response = await sendRequest(`${daemon.url}${path}`, { ...init, headers });
    const { text } = response;
    const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    const verdict = openapi.validateResponse(body, operationId, response.status);
    expect(verdict.errors ?? [], `${operationId} ${response.status}: ${text}`).toEqual([]);
    expect(verdict.valid).toBe(true);
    checked.add(operationId);
    return { status: response.status, headers: response.headers, body: body ?? {} };
  };

  beforeAll(async () => {
    bed = await DaemonTestBed.open({
      controlPlane: {
        workTurns: { pollingIntervalSeconds: 0.5, cancelCheckIntervalMs: 200 },
        turnRequests: { pollingIntervalSeconds: 0.5 },
      },
      script: (request) => {
        const prompt = promptOf(request);
        const outputs = request.functionCallOutputs.map((output) => String(output.output));
        if (prompt.startsWith('TASK ')) {
          if (outputs.length === 0) {
            return toolCallStep('submit_result', { summary: `${prompt.slice(5)} checked` });
          }
          return { text: `Submitted: ${outputs.join(' | ')}` };
        }
        if (prompt.startsWith('WRITE ')) {
          if (outputs.length === 0) return toolCallStep('write_note', { name: prompt.slice(6) });
          return { text: `Result: ${outputs.join(' | ')}` };
        }
        return { text: `Echo: ${prompt}` };
      },
    });
    ({ controlPlane, model } = bed);
    daemon = await bed.startDaemon({
      agents: ['ops', 'hasty'],
      port: 0,
      token: TOKEN,
      readToken: READ_TOKEN,
      scheduler: false,
      heartbeatMs: 300,
      staleTurnMs: 3_000,
      approvals: { policy: (agent) => POLICIES[agent] ?? ASK, pollMs: 100 },
      sources: [workTurnSource(controlPlane, ['ops'])],
      tools: () => [writeNote],
      // The manifest as `switchyard serve` builds it, from a configuration with the schedule tools.
      toolManifest: (agent) =>
        buildToolManifest({
          config: toolsConfig,
          agent: resolveAgent(toolsConfig, agent),
          toolSearch: 'client',
        }),
    });
    const answer = await fetch(`${daemon.url}/v1/openapi.json`, {
      headers: { authorization: `Bearer ${READ_TOKEN}` },
    });
    document = (await answer.json()) as Record<string, unknown>;
    openapi = new OpenAPIBackend({ definition: document as never, quick: true, strict: true });
    await openapi.init();
  }, 180_000);

  afterAll(async () => {
    await bed?.close();
  }, 180_000);

  it('serves a valid OpenAPI 3.1 document, and every route answers as it says, errors included', async () => {
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

    // A destructive call asks: the turn waits, its approval is listed, a denial reaches the model.
    const started = await call('startTurn', '/v1/turns', { body: { prompt: 'WRITE denied-note' } });
    expect(started.status).toBe(202);
    const turnId = String(started.body.id);
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

    // Cancelling a waiting turn: 202, its approval cancelled, and then 409.
    const doomed = await call('startTurn', '/v1/turns', { body: { prompt: 'WRITE cancelled-note' } });
    const doomedId = String(doomed.body.id);
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

    // What the console reads first: which token was used, the agents served.
    expect((await call('getSession', '/v1/session')).body).toEqual({
      access: 'full',
      agents: ['ops', 'hasty'],
      defaultAgent: 'ops',
      version: expect.any(String),
    });
    expect((await call('getSession', '/v1/session', { token: READ_TOKEN })).body.access).toBe('read-only');
    expect((await call('getSession', '/v1/session', { token: null })).status).toBe(401);

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
    expect(scheduledTurn.body).toMatchObject({ agent: 'hasty', source: 'schedule' });
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

    // Every operation of the document was exercised.
    const operations = openapi.getOperations().map((operation) => operation.operationId);
    expect([...checked].toSorted()).toEqual(operations.toSorted());
  });

  it('a client typed from the document starts a workflow, follows events, answers the approval and reads the stored result', async () => {
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
      .map((message) => message.data.status);
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

  it('lets a turn waiting for approval go at shutdown; another daemon continues it once answered, and the call runs once', async () => {
    /** A daemon of the `relay` agent whose calls of write_note ask for approval. */
    const startRelay = (workerId: string, options: { graceMs?: number } = {}) =>
      startDaemon({
        controlPlane,
        model,
        agents: ['relay'],
        port: 0,
        scheduler: false,
        heartbeatMs: 200,
        staleTurnMs: 60_000,
        ...options,
        workerId,
        approvals: { policy: () => ASK, pollMs: 100 },
        tools: () => [writeNote],
      });
    const first = await startRelay('worker_first', { graceMs: 5_000 });
    const started = await fetch(`${first.url}/v1/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'WRITE relayed-note' }),
    });
    const turnId = String(((await started.json()) as { id: string }).id);
    const [approval] = await waitFor('the approval', async () => {
      const listed = await controlPlane.approvals.list({ turnId });
      return listed.length === 1 ? listed : undefined;
    });
    const report = await first.stop();
    expect(report).toMatchObject({ released: 1, cancelled: 0 });
    const record = await controlPlane.turns.get(turnId);
    expect(record?.status).toBe('waiting-approval');
    expect((await controlPlane.approvals.get(approval?.id ?? ''))?.status).toBe('pending');

    const second = await startRelay('worker_second');
    try {
      // Not continued while pending; then answered from "another process" (the store directly).
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await controlPlane.turns.get(turnId))?.workerId).toBe('worker_first');
      await controlPlane.approvals.answer({
        id: approval?.id ?? '',
        decision: 'allow',
        answeredBy: 'cli:test',
      });
      const ended = await waitFor('the continued turn to end', async () => {
        const found = await controlPlane.turns.get(turnId);
        return found?.status === 'completed' ? found : undefined;
      });
      expect(ended).toMatchObject({ workerId: 'worker_second', output: 'Result: wrote relayed-note' });
      expect(writes.get('relayed-note')).toBe(1);
      const log = (await controlPlane.turns.events(turnId))?.events as Array<{ type: string }>;
      const types = log.map((event) => event.type);
      // The log runs across both processes: the request and hold from the first, the rest from the second.
      expect(types).toEqual([
        'turn-start',
        'model-request-start',
        'model-request-end',
        'approval-requested',
        // The second process's loop starts where the first one's held call waited.
        'turn-start',
        'approval-resolved',
        ...toolCallThenAnswer(types),
      ]);
      expect((await controlPlane.approvals.get(approval?.id ?? ''))?.consumedBy).toBe('worker_second');
    } finally {
      await second.stop();
    }
  });
});
