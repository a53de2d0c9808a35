import type { AgentEvent } from '@switchyard/core';
import { ZERO_USAGE } from '@switchyard/core/internal';
import { describe, expect, it } from 'vitest';
import { testControlPlaneForSuite } from '../__fixtures__/test-control-plane';
import type { DaemonTurnEvent, DaemonTurnRecords, DaemonTurnSnapshot } from './daemon-turn-types';
import {
  appendEvent,
  compactEvents,
  describeUnfinishedTurn,
  recordTurnEnd,
  serialiseEvent,
} from './turn-event-recording';

// Event recording: the log a turn keeps (text deltas of one request joined), the events as the
// streams carry them, and its end written to the real turn records (PGlite), retried.

const delta = (iteration: number, text: string): DaemonTurnEvent => ({
  type: 'text-delta',
  iteration,
  delta: text,
});

describe('the event log', () => {
  it('joins the text deltas of one model request, and keeps those of another request apart', () => {
    const log: DaemonTurnEvent[] = [];
    for (const event of [delta(1, 'Hel'), delta(1, 'lo'), delta(2, ' again'), delta(2, '!')]) {
      appendEvent(log, event);
    }
    expect(log).toEqual([delta(1, 'Hello'), delta(2, ' again!')]);
  });

  it('keeps a delta after another event as a new event, and compacts a log without changing its text', () => {
    const events: DaemonTurnEvent[] = [
      delta(1, 'a'),
      { type: 'model-request-end', iteration: 1, usage: ZERO_USAGE } as DaemonTurnEvent,
      delta(1, 'b'),
      delta(1, 'c'),
    ];
    const compact = compactEvents(events);
    expect(compact.map((event) => event.type)).toEqual(['text-delta', 'model-request-end', 'text-delta']);
    expect(compact.at(-1)).toEqual(delta(1, 'bc'));
    // The input is left as it was.
    expect(events).toHaveLength(4);
  });
});

describe('events as the streams carry them', () => {
  it('gives an error as its message, and counts the iterations another process ran', () => {
    const end: AgentEvent = {
      type: 'turn-end',
      status: 'failed',
      iterations: 2,
      usage: ZERO_USAGE,
      error: new Error('the model failed'),
    };
    expect(serialiseEvent(end, 3)).toMatchObject({
      type: 'turn-end',
      iterations: 5,
      error: 'the model failed',
    });
    const text: AgentEvent = { type: 'text-delta', iteration: 1, delta: 'x' };
    expect(serialiseEvent(text, 3)).toEqual({ type: 'text-delta', iteration: 4, delta: 'x' });
    // Without an offset the event is passed on as it is.
    expect(serialiseEvent(text, 0)).toBe(text);
  });
});

describe('the operator log line of a turn', () => {
  const snapshot: DaemonTurnSnapshot = {
    id: 'turn_1',
    agent: 'ada',
    title: 'a turn',
    source: 'schedule',
    sourceId: 'run_7',
    status: 'failed',
    output: '',
    usage: ZERO_USAGE,
    iterations: 1,
    createdAt: new Date(0).toISOString(),
    error: 'the model failed\nstack trace line',
  };

  it('names the turn, its source and the first line of its error when it did not finish', () => {
    expect(describeUnfinishedTurn(snapshot)).toBe(
      'switchyard serve: turn turn_1 of agent ada (schedule run_7) failed: the model failed',
    );
  });

  it('is none for a turn that finished', () => {
    expect(describeUnfinishedTurn({ ...snapshot, status: 'completed' })).toBeUndefined();
    expect(describeUnfinishedTurn({ ...snapshot, status: 'ended-by-tool' })).toBeUndefined();
  });
});

describe('recording how a turn ended (the turn records on PGlite)', () => {
  const bed = testControlPlaneForSuite();

  async function runningTurn(id: string): Promise<DaemonTurnSnapshot> {
    const record = await bed.controlPlane.turns.recordStart({
      id,
      agentId: 'ada',
      source: 'api',
      prompt: 'hello',
      workerId: 'worker_test',
    });
    return {
      id,
      agent: 'ada',
      title: 'a turn',
      source: 'api',
      status: 'completed',
      output: 'Hello there',
      usage: { ...ZERO_USAGE, inputTokens: 3, outputTokens: 2, totalTokens: 5 },
      iterations: 1,
      createdAt: record.createdAt,
    };
  }

  /** The real records, counting the writes and failing the first `failures` of them as a lost connection would. */
  function flakyRecords(failures: number): {
    records: Pick<DaemonTurnRecords, 'recordEnd'>;
    attempts: () => number;
  } {
    let attempts = 0;
    return {
      records: {
        recordEnd: async (request) => {
          attempts += 1;
          if (attempts <= failures) throw new Error('Connection terminated unexpectedly');
          return bed.controlPlane.turns.recordEnd(request);
        },
      },
      attempts: () => attempts,
    };
  }

  /**
   * Records the end of a new running turn `id` through records that fail the first `failures`
   * writes, retrying after `retryDelaysMs`: how many writes it tried, and the lines it logged.
   */
  async function recordThroughFlakyRecords(id: string, failures: number, retryDelaysMs: number[]) {
    const snapshot = await runningTurn(id);
    const flaky = flakyRecords(failures);
    const lines: string[] = [];
    await recordTurnEnd(
      flaky.records,
      { snapshot, events: [] },
      { retryDelaysMs, log: (line) => lines.push(line) },
    );
    return { attempts: flaky.attempts(), lines };
  }

  it('stores the status, output, usage and the log with its deltas joined', async () => {
    const snapshot = await runningTurn('turn_recorded');
    const events = [delta(1, 'Hello'), delta(1, ' there')];
    await recordTurnEnd(bed.controlPlane.turns, { snapshot, events });
    const record = await bed.controlPlane.turns.get('turn_recorded');
    expect(record).toMatchObject({ status: 'completed', output: 'Hello there', iterations: 1 });
    expect(record?.usage.totalTokens).toBe(5);
    expect((await bed.controlPlane.turns.events('turn_recorded'))?.events).toEqual([delta(1, 'Hello there')]);
  });

  it('retries a write that failed, after each of the delays, until it is stored', async () => {
    const { attempts, lines } = await recordThroughFlakyRecords('turn_retried', 2, [5, 5, 5]);
    expect(attempts).toBe(3);
    expect(lines).toEqual([]);
    expect((await bed.controlPlane.turns.get('turn_retried'))?.status).toBe('completed');
  });

  it('gives up after the last retry, says so, and leaves the record running (it is swept as interrupted later)', async () => {
    const { attempts, lines } = await recordThroughFlakyRecords('turn_unrecorded', 10, [5, 5]);
    expect(attempts).toBe(3);
    expect(lines).toEqual([
      'switchyard serve: could not record the end of turn_unrecorded (completed): Error: Connection terminated unexpectedly',
    ]);
    expect((await bed.controlPlane.turns.get('turn_unrecorded'))?.status).toBe('running');
  });

  it('does not reject when the records refuse the end outright', async () => {
    const snapshot = await runningTurn('turn_refused');
    const lines: string[] = [];
    // `running` is not an end the records take: every attempt is refused.
    await recordTurnEnd(
      bed.controlPlane.turns,
      { snapshot: { ...snapshot, status: 'running' }, events: [] },
      { retryDelaysMs: [], log: (line) => lines.push(line) },
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('could not record the end of turn_refused (running)');
    expect((await bed.controlPlane.turns.get('turn_refused'))?.status).toBe('running');
  });
});
