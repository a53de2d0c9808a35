import { createResponsesModel, defineWorkerTool } from '@switchyard/core';
import { type FakeResponsesServer, startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestControlPlane, type TestControlPlane } from '../__fixtures__/test-control-plane';
import { parseConfig } from '../config/load-config';
import { firstIterationCheckpoint, requestWriteApproval } from './__fixtures__/held-call';
import { DaemonTurns } from './daemon-turns';

// The approval gate continuing a turn another worker left waiting, on a real control plane (PGlite)
// and the real SDK against the fake model: a decision runs only the call it was recorded for, with
// exactly the arguments it holds, whatever the stored transcript says.

const AGENT = 'gate';
/** The policy of every turn here: destructive calls wait for an answer, whatever the turn's source. */
const ASK = parseConfig({ approvals: { destructive: 'ask' } }, { env: {} }).approvals;
const DEAD = 'worker_dead';

describe('the approval gate of a continued turn', () => {
  let bed: TestControlPlane;
  let fake: FakeResponsesServer;
  const written: unknown[] = [];
  const writeFile = defineWorkerTool({
    name: 'write_file',
    description: 'Write a file.',
    schema: z.object({ path: z.string(), content: z.string() }),
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: ({ path }) => `Writing ${path}`,
    execute: async (params) => {
      written.push(params);
      return { content: `wrote ${params.path}` };
    },
  });

  beforeAll(async () => {
    bed = await openTestControlPlane();
    fake = await startFakeResponsesServer({
      script: (request) => ({
        text: `outputs: ${request.functionCallOutputs.map((o) => String(o.output)).join(' | ')}`,
      }),
    });
  });

  afterAll(async () => {
    await fake?.close();
    await bed?.close();
  });

  /** A turn of the dead worker, held on its write_file call with `approved`, its transcript saying `sent`. */
  async function leftWaiting(label: string, approved: unknown, sent: unknown): Promise<string> {
    const { controlPlane } = bed;
    const turnId = `turn_${label}`;
    await controlPlane.turns.recordStart({
      id: turnId,
      agentId: AGENT,
      source: 'api',
      prompt: 'write',
      workerId: DEAD,
    });
    const items: ResponseInputItem[] = [
      { type: 'message', role: 'user', content: 'write' },
      { type: 'function_call', call_id: 'call_1', name: 'write_file', arguments: JSON.stringify(sent) },
    ];
    const checkpoint = firstIterationCheckpoint(items);
    const approval = await requestWriteApproval(controlPlane.approvals, {
      turnId,
      workerId: DEAD,
      callId: 'call_1',
      callIndex: 1,
      activity: 'Writing',
      arguments: approved,
      checkpoint,
    });
    await controlPlane.approvals.answer({ id: approval.id, decision: 'allow', answeredBy: 'test' });
    expect(await controlPlane.approvals.release({ turnId, workerId: DEAD, checkpoint })).toBe(true);
    return turnId;
  }

  async function continueTurn(turnId: string) {
    const { controlPlane } = bed;
    const turns = new DaemonTurns({
      model: createResponsesModel({
        client: new OpenAI({ baseURL: fake.baseURL, apiKey: 'test', maxRetries: 0 }),
        model: 'fake-model',
      }),
      tools: () => [writeFile],
      records: controlPlane.turns,
      approvals: {
        store: controlPlane.approvals,
        policy: () => ASK,
      },
    });
    const [claimed] = (
      await controlPlane.approvals.claimResumable({ workerId: turns.workerId, staleAfterMs: 0 })
    ).filter((turn) => turn.turn.id === turnId);
    if (claimed === undefined) throw new Error(`${turnId} was not claimable`);
    const { done } = await turns.resume(claimed);
    return done;
  }

  it('runs an allowed call with the arguments its approval holds', async () => {
    const args = { path: 'same.txt', content: 'approved' };
    const turnId = await leftWaiting('same', args, { content: 'approved', path: 'same.txt' });
    const snapshot = await continueTurn(turnId);
    expect(snapshot.status).toBe('completed');
    expect(written).toEqual([args]);
    expect((await bed.controlPlane.turns.get(turnId))?.status).toBe('completed');
  });

  it('refuses an allowed call whose transcript holds other arguments than the approval', async () => {
    written.length = 0;
    const turnId = await leftWaiting(
      'tampered',
      { path: 'notes.txt', content: 'approved' },
      { path: 'notes.txt', content: 'approved; and more' },
    );
    const snapshot = await continueTurn(turnId);
    expect(snapshot.status).toBe('completed');
    expect(written).toEqual([]);
    expect(snapshot.output).toContain(
      'Tool call denied: the approval an operator gave was for write_file with other arguments than this call has; it was not run',
    );
    expect((await bed.controlPlane.turns.get(turnId))?.status).toBe('completed');
  });
});
