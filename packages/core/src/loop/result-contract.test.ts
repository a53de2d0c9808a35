// The design document's result contract (docs: "the content the model sees, structured details for
// logs, optional response presentation events, and optional flags that complete the actor event or
// end the turn"): a tool written to it type-checks, and each field does what core's README says.

import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type AgentToolResult, defineWorkerTool, type ToolPresentationEvent } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';

// Written to the document's contract: every field of its result, set.
const publishReport = defineWorkerTool({
  name: 'publish_report',
  description: 'Publish the report and show it.',
  schema: z.object({ title: z.string(), fail: z.boolean().optional() }),
  describeActivity: ({ title }) => `Publishing ${title}`,
  execute: async ({ title, fail }) => ({
    content: fail ? `could not publish ${title}` : `published ${title}`,
    details: { title },
    presentation: [
      { kind: 'file-preview', data: { path: `reports/${title}.md` } },
      { kind: 'link', data: { url: 'https://example.com/reports' } },
    ],
    completesActorEvent: true,
    ...(fail ? { isError: true } : {}),
  }),
});

describe("the design document's result contract", () => {
  it('has presentation events and the actor-event flag as optional fields', () => {
    expectTypeOf<AgentToolResult['presentation']>().toEqualTypeOf<ToolPresentationEvent[] | undefined>();
    expectTypeOf<AgentToolResult['completesActorEvent']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<{ content: string }>().toExtend<AgentToolResult>();
  });

  it('passes presentation events on in tool-call-end, never to the model, and marks the actor event completed', async () => {
    const { events, server } = await runTurn(
      [
        { functionCalls: [{ name: 'publish_report', arguments: { title: 'q3' }, callId: 'c1' }] },
        { text: 'Published.' },
      ],
      { tools: [publishReport] },
    );
    const [end] = toolCallEnds(events);
    expect(end).toMatchObject({ outcome: 'completed', completesActorEvent: true, endsTurn: false });
    expect(end?.result.presentation).toEqual([
      { kind: 'file-preview', data: { path: 'reports/q3.md' } },
      { kind: 'link', data: { url: 'https://example.com/reports' } },
    ]);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).not.toContain('file-preview');
    expect(server.requests[1]?.functionCallOutputs).toEqual([{ callId: 'c1', output: 'published q3' }]);
  });

  it('completes no actor event with a failed result', async () => {
    const { events } = await runTurn(
      [
        { functionCalls: [{ name: 'publish_report', arguments: { title: 'q3', fail: true } }] },
        { text: 'It failed.' },
      ],
      { tools: [publishReport] },
    );
    const [end] = toolCallEnds(events);
    expect(end?.outcome).toBe('tool-error');
    expect(end).not.toHaveProperty('completesActorEvent');
  });
});
