import { randomBytes } from 'node:crypto';
import type { ControlPlane } from '@switchyard/control-plane';
import { toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf } from '../../__fixtures__/scripted-model';
import { summaryTask } from '../../__fixtures__/summary-schema';
import { parseConfig } from '../../config/load-config';
import { DaemonTestBed } from '../__fixtures__/daemon-test-bed';
import { rawRequest, requestJson, waitFor } from '../__fixtures__/http-client';
import type { Daemon } from '../start-daemon';
import { writeNote } from './__fixtures__/api-test-bed';

// Input a client should never have sent, through the daemon's HTTP API in process on embedded PGlite:
// tampered list cursors, bad limits, and text no database can store in every text field of a body.
// Each is a 400 naming the field, never a 500. And a daemon answers 404 for the turns, approvals and
// workflows of agents it does not serve, leaving them as they were.

const policy = parseConfig({ approvals: { destructive: 'ask' } }, { env: {} }).approvals;
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** What tampered cursors decode to (base64url): text that is not a cursor the API gave out. */
const TAMPERED_CURSOR_TEXTS: Record<string, string> = {
  'base64 of text that is not JSON': '{not json',
  'base64 of JSON null': 'null',
  'base64 of a JSON number': '5',
  'base64 of a JSON string': '"ab"',
  'base64 of an object': '{"createdAt":"2024-01-01T00:00:00Z","id":"turn_x"}',
  'base64 of two words': '["x","y"]',
  'base64 of two numbers': '[1,2]',
  'a date that does not exist': '["2024-02-30T00:00:00.000000Z","turn_x"]',
  'a time out of range': '["2024-01-01T99:99:99Z","turn_x"]',
  'year zero': '["0000-01-01T00:00:00Z","turn_x"]',
  'an id with a NUL': '["2024-01-01T00:00:00Z","a\\u0000b"]',
  'an id with a lone surrogate': '["2024-01-01T00:00:00Z","\\ud800"]',
  'a time with a lone surrogate': '["2024-01-01T00:00:00Z\\udc00","turn_x"]',
};

/** Cursors a client made up or changed: none of them is one the API gave out. */
const TAMPERED_CURSORS: Array<[string, string]> = [
  ['random bytes', randomBytes(30).toString('base64url')],
  ...Object.entries(TAMPERED_CURSOR_TEXTS).map(([what, text]): [string, string] => [what, base64(text)]),
  ['an id too long for an id', base64(`["2024-01-01T00:00:00Z","${'a'.repeat(200)}"]`)],
  ['a huge cursor', 'A'.repeat(5_000)],
  ['a NUL', '%00'],
  ['a NUL inside', `${base64('["2024-01-01T00:00:00Z","turn_x"]')}%00`],
  ['a lone surrogate, percent-encoded', '%ED%A0%80'],
  ['a lone surrogate inside', `ab%ED%B0%80cd`],
  ['an empty cursor', ''],
];

const BAD_LIMITS = ['0', '-1', '101', '1.5', 'abc', '1e9', '%00', '%ED%A0%80', '', '9'.repeat(400)];

let bed: DaemonTestBed;
let controlPlane: ControlPlane;
let ops: Daemon;
let main: Daemon;
let mainTurn: string;
let mainApproval: string;
let mainWorkflow: string;
let opsApproval: string;

beforeAll(async () => {
  bed = await DaemonTestBed.open({
    script: (request) =>
      request.functionCallOutputs.length > 0
        ? { text: 'noted' }
        : toolCallStep('write_note', { name: promptOf(request) }),
  });
  ({ controlPlane } = bed);
  const options = {
    port: 0,
    scheduler: false as const,
    approvals: { policy: () => policy, pollMs: 100 },
    tools: () => [writeNote],
  };
  ops = await bed.startDaemon({ ...options, agents: ['ops'] });
  main = await bed.startDaemon({ ...options, agents: ['main'] });
  // A turn of each agent held for approval, and a workflow of `main` (nothing runs its tasks).
  const held = async (daemon: Daemon, prompt: string) => {
    const started = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt } });
    expect(started.status).toBe(202);
    const id = String(started.body.id);
    const approval = await waitFor('the held call', async () => {
      const [record] = await controlPlane.approvals.list({ turnId: id, status: 'pending' });
      return record;
    });
    return { turn: id, approval: approval.id };
  };
  ({ turn: mainTurn, approval: mainApproval } = await held(main, 'main-note'));
  ({ approval: opsApproval } = await held(ops, 'ops-note'));
  const workflow = await controlPlane.workflows.startWorkflow({
    agentId: 'main',
    spec: { name: 'elsewhere', tasks: [summaryTask('only', 'TASK only')] as never },
  });
  mainWorkflow = workflow.id;
}, 180_000);

afterAll(async () => {
  await bed?.close();
}, 180_000);

const get = async (path: string) => {
  const answer = await rawRequest(ops.url, path);
  return {
    status: answer.status,
    body: JSON.parse(answer.text) as { error?: { code: string; fields?: string[] } },
  };
};

describe('the daemon’s HTTP API refuses bad input with 400 naming the field: list cursors', () => {
  for (const route of ['/v1/turns', '/v1/approvals']) {
    it.each(TAMPERED_CURSORS)(`${route}: %s`, async (_, cursor) => {
      const answer = await get(`${route}?cursor=${cursor}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_query', fields: ['cursor'] });
    });
  }

  it('still pages with the cursors the API gives out', async () => {
    const first = await requestJson(`${ops.url}/v1/approvals?status=pending&limit=1`);
    expect(first.status).toBe(200);
    const turns = await requestJson(`${main.url}/v1/turns?limit=1`);
    expect(turns.body.turns).toHaveLength(1);
    const next = turns.body.nextCursor;
    if (typeof next === 'string') {
      expect((await requestJson(`${main.url}/v1/turns?limit=1&cursor=${next}`)).status).toBe(200);
    }
  });
});

describe('the daemon’s HTTP API refuses bad input with 400 naming the field: list limits and filters', () => {
  for (const route of ['/v1/turns', '/v1/approvals']) {
    it.each(BAD_LIMITS)(`${route}?limit=%s`, async (limit) => {
      const answer = await get(`${route}?limit=${limit}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_query', fields: ['limit'] });
    });
  }

  it.each([
    ['/v1/turns?agent=%00', 'agent'],
    ['/v1/turns?status=%ED%A0%80', 'status'],
    ['/v1/approvals?turn=a%00b', 'turn'],
    ['/v1/approvals?agent=%ED%A0%80', 'agent'],
    ['/v1/workflows?agent=%00', 'agent'],
    ['/v1/schedules?all=%00', 'all'],
    ['/v1/events?agent=%ED%A0%80', 'agent'],
  ])('%s', async (path, field) => {
    const answer = await get(path);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_query', fields: [field] });
  });
});

describe('the daemon’s HTTP API refuses bad input with 400 naming the field: text fields of bodies', () => {
  const NUL = 'before\u0000after';
  const LONE = 'before\ud800after';
  const task = (overrides: Record<string, unknown>) => ({
    name: 'w',
    tasks: [{ ...summaryTask('one', 'TASK one'), ...overrides }],
  });
  const cases: Array<[string, string, (text: string) => unknown, string]> = [
    ['POST /v1/turns', '/v1/turns', (text) => ({ prompt: text }), 'prompt'],
    ['POST /v1/turns', '/v1/turns', (text) => ({ prompt: 'p', agent: text }), 'agent'],
    ['POST /v1/workflows', '/v1/workflows', (text) => ({ ...task({}), name: text }), 'name'],
    ['POST /v1/workflows', '/v1/workflows', (text) => task({ id: text }), 'tasks[0].id'],
    ['POST /v1/workflows', '/v1/workflows', (text) => task({ prompt: text }), 'tasks[0].prompt'],
    ['POST /v1/workflows', '/v1/workflows', (text) => task({ dependsOn: [text] }), 'tasks[0].dependsOn[0]'],
    [
      'POST /v1/workflows',
      '/v1/workflows',
      (text) => task({ resultSchema: { type: 'object', description: text } }),
      'tasks[0].resultSchema',
    ],
    [
      'POST /v1/workflows',
      '/v1/workflows',
      (text) => task({ resultSchema: { type: 'object', properties: { [text]: { type: 'string' } } } }),
      'tasks[0].resultSchema',
    ],
  ];
  for (const [what, text] of [
    ['a NUL', NUL],
    ['a lone surrogate', LONE],
  ] as const) {
    it.each(cases)(`%s: ${what} in %s's %#`, async (_, path, body, field) => {
      const answer = await requestJson(`${ops.url}${path}`, { body: body(text) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error).toMatchObject({ fields: [field] });
    });

    it(`POST /v1/approvals/{id}: ${what} in reason, and the approval stays pending`, async () => {
      const answer = await requestJson(`${ops.url}/v1/approvals/${opsApproval}`, {
        body: { decision: 'deny', reason: text },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_body', fields: ['reason'] });
      expect((await controlPlane.approvals.get(opsApproval))?.status).toBe('pending');
    });
  }
});

describe('the daemon’s HTTP API refuses bad input with 400 naming the field: resources of agents the daemon does not serve', () => {
  it.each([
    ['GET', () => `/v1/turns/${mainTurn}`],
    ['GET', () => `/v1/turns/${mainTurn}/events`],
    ['POST', () => `/v1/turns/${mainTurn}/cancel`],
    ['GET', () => `/v1/approvals/${mainApproval}`],
    ['POST', () => `/v1/approvals/${mainApproval}`],
    ['GET', () => `/v1/workflows/${mainWorkflow}`],
    ['POST', () => `/v1/workflows/${mainWorkflow}/cancel`],
  ])('%s %s is 404 through a daemon serving only ops', async (method, path) => {
    const answer = await requestJson(`${ops.url}${path()}`, {
      method,
      ...(method === 'POST' ? { body: { decision: 'allow' } } : {}),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(404);
    expect(answer.body.error).toMatchObject({ code: 'not_found' });
  });

  it('left them as they were, and the daemon serving main answers them', async () => {
    expect((await controlPlane.approvals.get(mainApproval))?.status).toBe('pending');
    expect((await controlPlane.turns.get(mainTurn))?.status).toBe('waiting-approval');
    expect(
      (await controlPlane.workflows.showWorkflow({ agentId: 'main', workflowId: mainWorkflow }))?.status,
    ).toBe('running');
    expect((await requestJson(`${main.url}/v1/turns/${mainTurn}`)).body).toMatchObject({ agent: 'main' });
    expect((await requestJson(`${main.url}/v1/approvals/${mainApproval}`)).body).toMatchObject({
      agent: 'main',
      status: 'pending',
    });
    expect((await requestJson(`${main.url}/v1/workflows/${mainWorkflow}`)).status).toBe(200);
    const answered = await requestJson(`${main.url}/v1/approvals/${mainApproval}`, {
      body: { decision: 'deny', reason: 'not here' },
    });
    expect(answered).toMatchObject({ status: 200, body: { status: 'denied' } });
  });
});
