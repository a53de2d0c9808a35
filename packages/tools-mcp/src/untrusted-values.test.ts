// What an MCP tool receives and returns is untrusted on both sides: the model writes the arguments,
// the server writes the result. Core refuses non-finite arguments before the server sees the call,
// and caps the result before the model reads it. Real stdio server, real openai SDK, fake model.

import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AgentEvent } from '@switchyard/core';
import { runToolCall } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { calcStdio, connectForSuite } from './__fixtures__/connect-for-suite';
import { runOnFakeModel } from './__fixtures__/run-on-fake-model';
import { createMcpTools } from './create-mcp-tools';

const suite = connectForSuite({ calc: calcStdio() });

/** Runs `work` while sampling the event loop every 10 ms; returns the longest block and the time taken. */
async function measureEventLoop<T>(work: () => Promise<T>) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const started = performance.now();
  try {
    const value = await work();
    return { value, elapsedMs: performance.now() - started, maxDelayMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

async function callsSeen(): Promise<Record<string, number>> {
  const call = await runToolCall(suite.tool('stats'), {});
  if (call.end.outcome !== 'completed') throw new Error(`stats: ${call.end.outcome}`);
  const [part] = call.end.result.content as Array<{ type: 'text'; text: string }>;
  return JSON.parse(part?.text ?? '{}').calls;
}

describe('non-finite arguments', () => {
  it('refuses 1e999 for a schema without bounds before the server sees the call', async () => {
    const {
      value: refused,
      elapsedMs,
      maxDelayMs,
    } = await measureEventLoop(() => runToolCall(suite.tool('echo'), '{"value": 1e999}'));
    // Correctness bounds, not speed targets (3 s: on a loaded 2-core machine waiting for a core alone
    // delays the loop by hundreds of ms): the refusal is immediate and the loop kept turning.
    expect(elapsedMs).toBeLessThan(3000);
    expect(maxDelayMs).toBeLessThan(3000);
    expect(refused.end.outcome).toBe('invalid-arguments');
    expect(refused.end.result.content).toContain('- /value: number is not finite (1e999 overflows)');
    expect((await callsSeen()).echo).toBeUndefined();
    // The same tool with a finite number reaches the server, which sees exactly what was validated.
    const accepted = await runToolCall(suite.tool('echo'), '{"value": 1.5e300}');
    expect(accepted.end).toMatchObject({
      outcome: 'completed',
      result: { content: [{ type: 'text', text: '{"value":1.5e+300}' }] },
    });
    expect((await callsSeen()).echo).toBe(1);
  });
});

describe('a 3 MB MCP result', () => {
  it('reaches the next model request cut to 64 KiB, head and tail kept, the cut recorded', async () => {
    const script = [
      { functionCalls: [{ name: 'big', namespace: 'calc', arguments: { bytes: 3_000_000 }, callId: 'c1' }] },
      { text: 'done' },
    ];
    const tools = createMcpTools({ servers: suite.servers });
    await runOnFakeModel({ script, tools, input: 'Get the big result.' }, async ({ run, fake }) => {
      const events: AgentEvent[] = [];
      const { elapsedMs, maxDelayMs } = await measureEventLoop(async () => {
        for await (const event of run) events.push(event);
      });
      expect((await run.result()).status).toBe('completed');
      // Correctness bounds (3 s: waiting for a core on a loaded machine counts as delay too).
      expect(maxDelayMs).toBeLessThan(3000);
      expect(elapsedMs).toBeLessThan(20_000);
      const output = fake.requests[1]?.functionCallOutputs[0]?.output as Array<{
        type: string;
        text: string;
      }>;
      const text = output.map((part) => part.text).join('');
      expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(65_536);
      expect(text.startsWith('BEGINxxx')).toBe(true);
      expect(text.endsWith('xxxEND')).toBe(true);
      // Counted as the model receives it: the text and its part's 32-byte envelope.
      expect(text).toMatch(/bytes cut from the middle of this result: it had 3000032 bytes/);
      const end = events.find((event) => event.type === 'tool-call-end');
      expect(end?.type === 'tool-call-end' && end.resultCut).toMatchObject({
        originalBytes: 3_000_032,
        limitBytes: 65_536,
      });
      expect(end?.type === 'tool-call-end' && end.result.details).toMatchObject({
        server: 'calc',
        tool: 'big',
        resultCut: { originalBytes: 3_000_032 },
      });
    });
  });
});
