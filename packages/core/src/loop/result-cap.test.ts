// Core's cap on tool results, through the real openai SDK against the fake server: what the next
// model request carries when a tool returns far more text than the model should read.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { AgentToolResult, ToolExecutionContext } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { bareTool } from './__fixtures__/test-tools';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const BIG = `BEGIN${'lorem ipsum '.repeat(250_000)}END`; // 3 MB

function bigTool(content: () => AgentToolResult['content'], seen: ToolExecutionContext[] = []) {
  return bareTool('dump', async (context) => {
    seen.push(context);
    return { content: content(), details: { source: 'dump' } };
  });
}

function outputOf(request: { functionCallOutputs: Array<{ callId: string; output: unknown }> } | undefined) {
  const output = request?.functionCallOutputs[0]?.output;
  if (typeof output !== 'string') throw new Error(`expected a string output, got ${JSON.stringify(output)}`);
  return output;
}

describe('tool result cap', () => {
  it('sends at most 64 KiB of a 3 MB result by default, head and tail kept, and records the cut', async () => {
    const seen: ToolExecutionContext[] = [];
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    const started = performance.now();
    const { result, events, server } = await runTurn(
      [{ functionCalls: [{ name: 'dump', arguments: {}, callId: 'c1' }] }, { text: 'done' }],
      { tools: [bigTool(() => BIG, seen)] },
    );
    const elapsedMs = performance.now() - started;
    histogram.disable();
    // Correctness bounds, not speed targets (3 s: on a loaded 2-core machine waiting for a core alone
    // delays the loop by hundreds of ms): cutting 3 MB kept the loop turning and the turn prompt.
    expect(histogram.max / 1e6).toBeLessThan(3000);
    expect(elapsedMs).toBeLessThan(20_000);
    expect(result.status).toBe('completed');
    const output = outputOf(server.requests[1]);
    expect(bytes(output)).toBeLessThanOrEqual(65_536);
    expect(output.startsWith('BEGINlorem ipsum')).toBe(true);
    expect(output.endsWith('ipsum END')).toBe(true);
    expect(output).toMatch(
      /bytes cut from the middle of this result: it had 3000008 bytes and at most 65536/,
    );
    const [end] = toolCallEnds(events);
    expect(end?.resultCut).toEqual({
      originalBytes: 3_000_008,
      keptBytes: bytes(output),
      cutBytes: expect.any(Number),
      limitBytes: 65_536,
    });
    expect(end?.result.content).toBe(output);
    expect(end?.result.details).toEqual({ source: 'dump', resultCut: end?.resultCut });
    // The tool is told the budget, so a tool that pages can fit its page within it.
    expect(seen[0]?.maxResultBytes).toBe(65_536);
  });

  it('takes maxToolResultBytes, also for text parts, and leaves a result within it untouched', async () => {
    const parts = () => [
      { type: 'text' as const, text: 'x'.repeat(3000) },
      { type: 'text' as const, text: 'y'.repeat(3000) },
    ];
    const { events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'dump', arguments: {}, callId: 'parts' },
            { name: 'small', arguments: {}, callId: 'small' },
          ],
        },
        { text: 'done' },
      ],
      {
        tools: [bigTool(parts), bareTool('small', async () => ({ content: 'z'.repeat(4096) }))],
        maxToolResultBytes: 4096,
      },
    );
    const outputs = new Map(
      server.requests[1]?.functionCallOutputs.map((entry) => [entry.callId, entry.output]),
    );
    const sent = outputs.get('parts') as Array<{ type: string; text: string }>;
    expect(sent.map((part) => part.type)).toEqual(['input_text', 'input_text', 'input_text']);
    expect(bytes(sent.map((part) => part.text).join(''))).toBeLessThanOrEqual(4096);
    expect(sent[0]?.text).toMatch(/^x+$/);
    expect(sent[2]?.text).toMatch(/^y+$/);
    expect(outputs.get('small')).toBe('z'.repeat(4096));
    const ends = new Map(toolCallEnds(events).map((event) => [event.callId, event]));
    expect(ends.get('parts')?.resultCut?.limitBytes).toBe(4096);
    expect(ends.get('small')?.resultCut).toBeUndefined();
    expect(ends.get('small')?.result.details).toBeUndefined();
  });

  it('sends a result of 200,000 one-byte parts and an 8 MB image as about the limit, not 14 MB', async () => {
    const parts = (): AgentToolResult['content'] => [
      { type: 'image', data: 'A'.repeat(8_000_000), mimeType: 'image/png' },
      ...Array.from({ length: 200_000 }, () => ({ type: 'text' as const, text: 'x' })),
    ];
    const { events, server } = await runTurn(
      [{ functionCalls: [{ name: 'dump', arguments: {}, callId: 'c1' }] }, { text: 'done' }],
      { tools: [bigTool(parts)] },
    );
    const sent = server.requests[1]?.functionCallOutputs[0]?.output as Array<{ type: string; text?: string }>;
    expect(bytes(JSON.stringify(sent))).toBeLessThanOrEqual(65_536 + 2);
    expect(sent[0]).toEqual({
      type: 'input_text',
      text: '[image (image/png, 8000000 bytes of base64) omitted: the images of one tool result may send the model at most 4194304 bytes]',
    });
    const [end] = toolCallEnds(events);
    expect(end?.resultCut).toMatchObject({ limitBytes: 65_536, omittedImages: 1 });
  });

  it("caps the loop's own outputs too: a thrown error of megabytes", async () => {
    const explode = bareTool('explode', async () => {
      throw new Error(BIG);
    });
    const { events, server } = await runTurn(
      [{ functionCalls: [{ name: 'explode', arguments: {}, callId: 'c1' }] }, { text: 'done' }],
      { tools: [explode] },
    );
    const output = outputOf(server.requests[1]);
    expect(output.startsWith("Tool 'explode' failed: BEGIN")).toBe(true);
    expect(bytes(output)).toBeLessThanOrEqual(65_536);
    const [end] = toolCallEnds(events);
    expect(end).toMatchObject({ outcome: 'tool-error', isError: true, resultCut: { limitBytes: 65_536 } });
  });

  it('refuses a maxToolResultBytes too small for the note, naming the option', async () => {
    await expect(runTurn([], { tools: [], maxToolResultBytes: 100 })).rejects.toThrow(
      /maxToolResultBytes must be an integer >= 1024, got 100/,
    );
  });
});

describe('an image part with no data', () => {
  it('reaches the model as a text placeholder, never as an empty input_image the API refuses', async () => {
    const { server, events } = await runTurn(
      [{ functionCalls: [{ name: 'dump', arguments: {}, callId: 'c1' }] }, { text: 'done' }],
      {
        tools: [
          bigTool(() => [
            { type: 'text', text: 'two images' },
            { type: 'image', data: '', mimeType: 'image/png' },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          ]),
        ],
      },
    );
    expect(server.requests[1]?.functionCallOutputs[0]?.output).toEqual([
      { type: 'input_text', text: 'two images' },
      { type: 'input_text', text: '[image (image/png) omitted: it was empty]' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
    ]);
    // The recorded result is what the model saw.
    expect(toolCallEnds(events)[0]?.result.content).toContainEqual({
      type: 'text',
      text: '[image (image/png) omitted: it was empty]',
    });
  });
});
