import { EventSourceParserStream } from 'eventsource-parser/stream';
import { describe, expect, it } from 'vitest';
import { openForSuite } from '../__fixtures__/open-for-suite';
import { DaemonTestBed } from './__fixtures__/daemon-test-bed';
import { waitFor } from './__fixtures__/http-client';
import { toolCallThenAnswer } from './__fixtures__/turn-events';
import { API_TEST_BED_OPTIONS, ASK, writeNote, writes } from './http/__fixtures__/api-test-bed';
import { startDaemon } from './start-daemon';

// A turn waiting for an approval outlives its daemon: at shutdown the daemon lets it go (released,
// not cancelled), and another daemon on the same control plane (embedded PGlite, the fake Responses
// server as the model) continues it once the approval is answered from elsewhere; the held call runs
// once, and the turn's log runs across both processes.

/** The event types a stream sends up to `last` (then the reader lets it go: the turn is still open). */
async function eventTypesUntil(url: string, last: string): Promise<string[]> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const types: string[] = [];
  const messages = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  try {
    for await (const { event } of messages) {
      if (event === undefined) continue;
      types.push(event);
      if (event === last) break;
    }
  } finally {
    controller.abort();
  }
  return types;
}

describe('a turn waiting for approval across daemons', () => {
  const bed = openForSuite(() => DaemonTestBed.open(API_TEST_BED_OPTIONS));

  it('lets a turn waiting for approval go at shutdown; another daemon continues it once answered, and the call runs once', async () => {
    const { controlPlane, model, server } = bed();
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
      // Let go and not yet continued, it shows what it did so far: the usage and the steps its
      // journal records, and its pending approval, in the turn, the list and its event stream.
      const shown = (await (await fetch(`${second.url}/v1/turns/${turnId}`)).json()) as {
        status: string;
        iterations: number;
        usage: { totalTokens: number };
      };
      expect(shown).toMatchObject({ status: 'waiting-approval', iterations: 1 });
      expect(shown.usage.totalTokens).toBeGreaterThan(0);
      const listed = (await (await fetch(`${second.url}/v1/turns?agent=relay`)).json()) as {
        turns: Array<{ id: string; usage: { totalTokens: number } }>;
      };
      expect(listed.turns.find((turn) => turn.id === turnId)?.usage.totalTokens).toBe(
        shown.usage.totalTokens,
      );
      expect(await eventTypesUntil(`${second.url}/v1/turns/${turnId}/events`, 'approval-requested')).toEqual([
        'model-request-end',
        'approval-requested',
      ]);
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
      const log = (await controlPlane.turns.events(turnId))?.events as Array<{
        type: string;
        replayed?: boolean;
        approval?: { decision: string };
      }>;
      const types = log.map((event) => event.type);
      // The log runs across both processes once: the second replays the first's step from the
      // journal (marked, not asked for again), then the held call's request and decision.
      expect(types).toEqual([
        'turn-start',
        'model-request-start',
        'model-request-end',
        'approval-requested',
        'approval-resolved',
        ...toolCallThenAnswer(types),
      ]);
      expect(log.slice(1, 3).map((event) => event.replayed)).toEqual([true, true]);
      expect(log.find((event) => event.type === 'tool-call-end')?.approval?.decision).toBe('allow');
      // One request per step: the first step's response was replayed, not asked for again.
      expect(server.requests).toHaveLength(2);
      expect((await controlPlane.approvals.get(approval?.id ?? ''))?.consumedBy).toBe('worker_second');
    } finally {
      await second.stop();
    }
  });
});
