import os from 'node:os';
import path from 'node:path';
import type { ControlPlane } from '@switchyard/control-plane';
import { defineWorkerTool, type ResponsesModel } from '@switchyard/core';
import { type FakeRequest, toolCallStep } from '@switchyard/testkit';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import OpenAPIBackend from 'openapi-backend';
import { expect } from 'vitest';
import { z } from 'zod';
import { promptOf } from '../../../__fixtures__/scripted-model';
import { type AgentBudgets, DEFAULT_AGENT_BUDGETS } from '../../../config/agent-budgets';
import { parseConfig } from '../../../config/load-config';
import { resolveAgent } from '../../../config/resolve-agent';
import type { ApprovalPolicy } from '../../../config/worker-config';
import { buildToolManifest } from '../../../tool-manifest';
import { DaemonTestBed, type DaemonTestBedOptions } from '../../__fixtures__/daemon-test-bed';
import { type DaemonRequest, sendRequest, serverSentEventsOf } from '../../__fixtures__/http-client';
import type { Daemon } from '../../start-daemon';
import { workTurnSource } from '../../work-source';
import { ToolCallEndEventSchema } from '../events/event-schemas';

// What the tests of the daemon's HTTP API share: an in-process daemon on embedded PGlite with the
// fake Responses server as the model, serving `ops` and `hasty` behind a bearer token and a
// read-only token, whose destructive calls (and `submit_result`) ask for approval; and a `call` that
// checks every answer against the OpenAPI document the daemon serves.

export const TOKEN = 'write-token-0123456789abcdef';
export const READ_TOKEN = 'read-token-0123456789abcdef';
export const ASK: ApprovalPolicy = parseConfig(
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
export const toolsConfig = parseConfig(
  { categories: { schedule: {} } },
  { env: {}, baseDir: path.join(os.tmpdir(), 'switchyard-daemon-api-tools') },
);

/** Every execution of the destructive tool, by note name. */
export const writes = new Map<string, number>();
export const writeNote = defineWorkerTool({
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
export async function openEvents(url: string, token: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const read = async (until: (event: { event: string; data: Record<string, unknown> }) => boolean) => {
    const events: Array<{ event: string; data: Record<string, unknown> }> = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return events;
      if (value.event === undefined) continue;
      const parsed = { event: value.event, data: JSON.parse(value.data) as Record<string, unknown> };
      events.push(parsed);
      if (until(parsed)) {
        // Not awaited: the server keeps the stream open; the connection is closed under it.
        reader.cancel().catch(() => {});
        return events;
      }
    }
  };
  return { read };
}

/** The `tool-call-end` events of a whole event stream's text, each checked against the API's schema. */
export function toolCallEndsOf(stream: string) {
  return serverSentEventsOf(stream)
    .filter((message) => message.event === 'tool-call-end')
    .map((message) => ToolCallEndEventSchema.parse(JSON.parse(message.data)));
}

/** The fake model: `TASK x` submits a result, `WRITE x` writes a note, anything else is echoed. */
function script(request: FakeRequest) {
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
}

/** The agents' budgets: the defaults, but `hasty` may start one workflow an hour. */
export const budgetsOfAgent = (agent: string): AgentBudgets =>
  agent === 'hasty' ? { ...DEFAULT_AGENT_BUDGETS, workflowsPerHour: 1 } : DEFAULT_AGENT_BUDGETS;

/** The control plane (quick polling of the work queues) and fake model every API test runs on. */
export const API_TEST_BED_OPTIONS: DaemonTestBedOptions = {
  controlPlane: {
    workTurns: { pollingIntervalSeconds: 0.5, cancelCheckIntervalMs: 200 },
    turnRequests: { pollingIntervalSeconds: 0.5 },
    startLimits: budgetsOfAgent,
  },
  script,
};

/**
 * A daemon serving `ops` and `hasty` on a fresh control plane (work turns of `ops` consumed too),
 * with the OpenAPI document it serves; `call` checks each answer against that document.
 */
export class ApiTestBed {
  /** Operation ids whose live answers were checked against the document. */
  readonly checked = new Set<string>();

  private constructor(
    readonly bed: DaemonTestBed,
    readonly daemon: Daemon,
    /** The document the daemon serves. */
    readonly document: Record<string, unknown>,
    /** The document, for checking answers against it. */
    readonly openapi: OpenAPIBackend,
  ) {}

  /** Opens the control plane and the fake model, starts the daemon and reads its document. */
  static async open(): Promise<ApiTestBed> {
    const bed = await DaemonTestBed.open(API_TEST_BED_OPTIONS);
    try {
      const daemon = await bed.startDaemon({
        agents: ['ops', 'hasty'],
        port: 0,
        token: TOKEN,
        readToken: READ_TOKEN,
        scheduler: false,
        heartbeatMs: 300,
        staleTurnMs: 3_000,
        approvals: { policy: (agent) => POLICIES[agent] ?? ASK, pollMs: 100 },
        budgets: { of: budgetsOfAgent },
        sources: [workTurnSource(bed.controlPlane, ['ops'])],
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
      const document = (await answer.json()) as Record<string, unknown>;
      const openapi = new OpenAPIBackend({ definition: document as never, quick: true, strict: true });
      await openapi.init();
      return new ApiTestBed(bed, daemon, document, openapi);
    } catch (error) {
      await bed.close();
      throw error;
    }
  }

  /** The open control plane. */
  get controlPlane(): ControlPlane {
    return this.bed.controlPlane;
  }

  /** The real SDK's model over the fake server. */
  get model(): ResponsesModel {
    return this.bed.model;
  }

  /** Sends a request and checks its answer against the document's response for `operationId`. */
  readonly call = async (
    operationId: string,
    path: string,
    /** `token`: the bearer token, TOKEN by default, null for none. */
    init: DaemonRequest & { token?: string | null } = {},
  ) => {
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? TOKEN : init.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const response = await sendRequest(`${this.daemon.url}${path}`, { ...init, headers });
    const { text } = response;
    const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    const verdict = this.openapi.validateResponse(body, operationId, response.status);
    expect(verdict.errors ?? [], `${operationId} ${response.status}: ${text}`).toEqual([]);
    expect(verdict.valid).toBe(true);
    this.checked.add(operationId);
    return { status: response.status, headers: response.headers, body: body ?? {} };
  };

  /** Stops the daemons, closes the control plane (removing its database) and the fake model. */
  async close(): Promise<void> {
    await this.bed.close();
  }
}
