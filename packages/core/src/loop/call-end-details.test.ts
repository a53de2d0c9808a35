// What a call's `tool-call-end` says besides its outcome: why its arguments were refused, and what
// `beforeToolCall` answered and how long it took. Telemetry reads both from the event, and so can the
// console; core's loop through the real openai SDK against the fake server.

import { describe, expect, it } from 'vitest';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { readFileTool } from './__fixtures__/test-tools';
import { runToolCallOnce } from './run-tool-call-once';

function endsById(events: Parameters<typeof toolCallEnds>[0]) {
  return new Map(toolCallEnds(events).map((end) => [end.callId, end]));
}

describe('refusal on tool-call-end', () => {
  it("names the ladder step or the schema that refused a call's arguments, and only then", async () => {
    const { events } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'read_file', arguments: { path: 5 }, callId: 'schema' },
            { name: 'read_file', arguments: '{"path": "a', callId: 'cut' },
            { name: 'read_file', arguments: 'path = a.md', callId: 'prose' },
            { name: 'no_such_tool', arguments: {}, callId: 'unknown' },
            { name: 'read_file', arguments: { path: 'a.md' }, callId: 'fine' },
          ],
        },
        { text: 'ok' },
      ],
      { tools: [readFileTool] },
    );
    const ends = endsById(events);
    expect(ends.get('schema')).toMatchObject({ outcome: 'invalid-arguments', refusal: 'invalid-arguments' });
    expect(ends.get('cut')).toMatchObject({ outcome: 'invalid-arguments', refusal: 'truncated' });
    expect(ends.get('prose')).toMatchObject({ outcome: 'invalid-arguments', refusal: 'invalid-json' });
    // The refusal is the one the model read in its output.
    expect(ends.get('cut')?.result.content).toMatch(/look cut off/);
    expect(ends.get('unknown')?.outcome).toBe('unknown-tool');
    expect(ends.get('unknown')).not.toHaveProperty('refusal');
    expect(ends.get('fine')?.outcome).toBe('completed');
    expect(ends.get('fine')).not.toHaveProperty('refusal');
  });

  it('is on the end runToolCallOnce returns, as in a turn', async () => {
    const { end } = await runToolCallOnce(readFileTool, '{"path": 5}');
    expect(end).toMatchObject({ outcome: 'invalid-arguments', refusal: 'invalid-arguments' });
  });
});

describe('approval on tool-call-end', () => {
  it("carries beforeToolCall's decision and how long the call waited for it", async () => {
    const { events } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'read_file', arguments: { path: 'a.md' }, callId: 'allowed' },
            { name: 'read_file', arguments: { path: 'secret.md' }, callId: 'denied' },
            { name: 'read_file', arguments: { path: 5 }, callId: 'never-asked' },
          ],
        },
        { text: 'ok' },
      ],
      {
        tools: [readFileTool],
        beforeToolCall: async (call) => {
          await new Promise((resolve) => setTimeout(resolve, 15));
          return call.callId === 'denied' ? { allow: false, reason: 'not that one' } : { allow: true };
        },
      },
    );
    const ends = endsById(events);
    expect(ends.get('allowed')).toMatchObject({ outcome: 'completed', approval: { decision: 'allow' } });
    expect(ends.get('allowed')?.approval?.waitMs).toBeGreaterThanOrEqual(10);
    expect(ends.get('denied')).toMatchObject({ outcome: 'denied', approval: { decision: 'deny' } });
    expect(ends.get('denied')?.approval?.waitMs).toBeGreaterThanOrEqual(10);
    // Refused before the hook was asked: no approval to report.
    expect(ends.get('never-asked')?.outcome).toBe('invalid-arguments');
    expect(ends.get('never-asked')).not.toHaveProperty('approval');
  });

  it('says deny for a hook that throws, and allow for a call cancelled after it was allowed', async () => {
    const controller = new AbortController();
    const { events } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'read_file', arguments: { path: 'a.md' }, callId: 'throws' },
            { name: 'read_file', arguments: { path: 'b.md' }, callId: 'aborted' },
          ],
        },
        { text: 'never asked for' },
      ],
      {
        tools: [readFileTool],
        signal: controller.signal,
        beforeToolCall: (call) => {
          if (call.callId === 'throws') throw new Error('policy service down');
          controller.abort(new Error('operator cancelled'));
          return { allow: true };
        },
      },
    );
    const ends = endsById(events);
    expect(ends.get('throws')).toMatchObject({ outcome: 'denied', approval: { decision: 'deny' } });
    expect(ends.get('aborted')).toMatchObject({ outcome: 'cancelled', approval: { decision: 'allow' } });
  });

  it('is absent without a beforeToolCall', async () => {
    const { events } = await runTurn(
      [{ functionCalls: [{ name: 'read_file', arguments: { path: 'a.md' }, callId: 'c1' }] }, { text: 'ok' }],
      { tools: [readFileTool] },
    );
    expect(toolCallEnds(events)[0]?.outcome).toBe('completed');
    expect(toolCallEnds(events)[0]).not.toHaveProperty('approval');
  });
});
