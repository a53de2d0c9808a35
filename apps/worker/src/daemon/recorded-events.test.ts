import { describe, expect, it } from 'vitest';
import { upgradeRecordedEvents } from './recorded-events';

const end = (outcome: string, isError: boolean) => ({
  type: 'tool-call-end',
  callId: `call_${outcome}_${isError}`,
  name: 'read_file',
  outcome,
  activity: 'Reading a.md',
  durationMs: 3,
  isError,
  repairs: [],
  result: { content: isError ? 'a.md does not exist' : 'text', isError },
  endsTurn: false,
});

describe('recorded events of an older worker', () => {
  it('reads completed-with-isError and error as tool-error, and leaves everything else as it is', () => {
    const start = { type: 'tool-call-start', callId: 'x', name: 'read_file' };
    const stored = [
      start,
      end('completed', true),
      end('error', true),
      end('completed', false),
      end('timeout', true),
      end('tool-error', true),
      { type: 'turn-end', status: 'completed', iterations: 1 },
    ];
    const before = structuredClone(stored);
    const read = upgradeRecordedEvents(stored);
    expect(read.map((event) => ('outcome' in event ? event.outcome : event.type))).toEqual([
      'tool-call-start',
      'tool-error',
      'tool-error',
      'completed',
      'timeout',
      'tool-error',
      'turn-end',
    ]);
    expect(read[1]).toEqual({ ...end('completed', true), outcome: 'tool-error' });
    // The stored log itself is not changed, and unchanged events are passed through as they are.
    expect(stored).toEqual(before);
    expect(read[0]).toBe(start);
    expect(read[3]).toBe(stored[3]);
  });

  it('passes malformed entries through without throwing', () => {
    expect(upgradeRecordedEvents([null, 3, 'text', { type: 'tool-call-end' }])).toEqual([
      null,
      3,
      'text',
      { type: 'tool-call-end' },
    ]);
  });
});
