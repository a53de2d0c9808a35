// Core's loop through the real openai SDK against the fake server: what each call's output becomes.

import { startFakeResponsesServer } from '@switchyard/fake-responses-server';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentToolResult,
  createResponsesModel,
  defineWorkerTool,
  runAgentLoop,
  type ToolCallRequest,
} from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { bareTool, neverSettles } from './__fixtures__/test-tools';

const readFile = defineWorkerTool({
  name: 'read_file',
  description: 'Read a file.',
  schema: z.object({ path: z.string() }),
  executionMode: 'parallel',
  isReadOnly: true,
  describeActivity: ({ path }) => `Reading ${path}`,
  describeCompletedActivity: ({ path }, result) =>
    `Read ${String(result.content).length} characters of ${path}`,
  execute: ({ path }) => ({ content: `text of ${path}`, details: { path } }),
});

describe('error outputs the model can act on', () => {
  it('turns an unknown tool, bad arguments, a throw and a timeout into outputs, and the turn goes on', async () => {
    const explode = bareTool('explode', () => {
      throw new Error('disk on fire');
    });
    const hang = bareTool('hang', neverSettles);
    const { result, events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'no_such_tool', arguments: {}, callId: 'unknown' },
            { name: 'read_file', arguments: { path: 5 }, callId: 'invalid' },
            { name: 'read_file', arguments: '{"path": "a', callId: 'malformed', chunks: 4 },
            { name: 'explode', arguments: {}, callId: 'threw' },
            { name: 'hang', arguments: {}, callId: 'timeout' },
            { name: 'read_file', arguments: { path: 'ok.md' }, callId: 'fine' },
          ],
        },
        { text: 'I will try again later.' },
      ],
      // `hang` never settles: it is abandoned once the grace after its timeout runs out.
      { tools: [readFile, explode, hang], toolTimeoutMs: 30, abandonGraceMs: 20 },
    );
    expect(result.status).toBe('completed');
    expect(result.output).toBe('I will try again later.');
    const outputs = new Map(
      server.requests[1]?.functionCallOutputs.map((output) => [output.callId, output.output]),
    );
    expect(outputs.get('unknown')).toMatch(/Unknown tool 'no_such_tool'.*read_file, explode, hang/);
    expect(outputs.get('invalid')).toMatch(
      /Invalid arguments for tool 'read_file'[\s\S]*\/path: expected string/,
    );
    expect(outputs.get('malformed')).toMatch(
      /Could not read the arguments for tool 'read_file'[\s\S]*inside a string/,
    );
    expect(outputs.get('threw')).toBe("Tool 'explode' failed: disk on fire");
    expect(outputs.get('timeout')).toMatch(
      /^Tool 'hang' timed out after 30 ms; it did not stop within 20 ms .*abandoned, so it may still be running/,
    );
    expect(outputs.get('fine')).toBe('text of ok.md');
    const ends = new Map(toolCallEnds(events).map((event) => [event.callId, event]));
    expect(
      ['unknown', 'invalid', 'malformed', 'threw', 'timeout', 'fine'].map((id) => [
        ends.get(id)?.outcome,
        ends.get(id)?.isError,
      ]),
    ).toEqual([
      ['unknown-tool', true],
      ['invalid-arguments', true],
      ['invalid-arguments', true],
      ['tool-error', true],
      ['timeout', true],
      ['completed', false],
    ]);
    expect(ends.get('fine')?.activity).toBe('Read 13 characters of ok.md');
  });

  it('hands the response finish reason on and goes on after a truncated call', async () => {
    const { result, events, server } = await runTurn(
      [
        {
          functionCalls: [{ name: 'read_file', arguments: '{"path": "notes/lo', callId: 'cut' }],
          finishReason: 'max_output_tokens',
        },
        { text: 'Retrying with less.' },
      ],
      { tools: [readFile] },
    );
    expect(events.find((event) => event.type === 'model-request-end')).toMatchObject({
      finishReason: 'max_output_tokens',
    });
    expect(server.requests[1]?.functionCallOutputs[0]?.output).toMatch(
      /Could not read the arguments for tool 'read_file' \(truncated; nothing was run\)[\s\S]*output token limit/,
    );
    expect(toolCallEnds(events)[0]).toMatchObject({ outcome: 'invalid-arguments', isError: true });
    expect(result.status).toBe('completed');
  });

  it('reports start with the activity label, progress, and end with duration', async () => {
    const count = defineWorkerTool({
      name: 'count',
      description: 'Counts.',
      schema: z.object({ to: z.number().int() }),
      describeActivity: ({ to }) => `Counting to ${to}`,
      execute: ({ to }, context) => {
        for (let completed = 1; completed <= to; completed += 1)
          context.reportProgress({ completed, total: to });
        return { content: String(to) };
      },
    });
    const { events } = await runTurn(
      [{ functionCalls: [{ name: 'count', arguments: { to: 2 } }] }, { text: '2' }],
      {
        tools: [count],
      },
    );
    const toolEvents = events.filter((event) => event.type.startsWith('tool-call'));
    expect(toolEvents.map((event) => event.type)).toEqual([
      'tool-call-start',
      'tool-call-progress',
      'tool-call-progress',
      'tool-call-end',
    ]);
    expect(toolEvents[0]).toMatchObject({ activity: 'Counting to 2', params: { to: 2 }, repairs: [] });
    expect(toolEvents[2]).toMatchObject({ progress: { completed: 2, total: 2 } });
    const end = toolEvents[3];
    expect(end).toMatchObject({
      outcome: 'completed',
      endsTurn: false,
      isError: false,
    });
    expect(end?.type === 'tool-call-end' && end.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('sends image parts as input_image outputs', async () => {
    const screenshot = bareTool(
      'screenshot',
      () => ({
        content: [
          { type: 'text', text: 'The screen:' },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        ],
      }),
      'sequential',
    );
    const { server } = await runTurn(
      [{ functionCalls: [{ name: 'screenshot', arguments: {} }] }, { text: 'ok' }],
      {
        tools: [screenshot],
      },
    );
    expect(server.requests[1]?.functionCallOutputs[0]?.output).toEqual([
      { type: 'input_text', text: 'The screen:' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
    ]);
  });
});

describe('beforeToolCall policy', () => {
  it('denies a call with the hook reason as its output, without running it', async () => {
    let ran = false;
    const remove = defineWorkerTool({
      name: 'remove_file',
      description: 'Delete a file.',
      schema: z.object({ path: z.string() }),
      isDestructive: true,
      describeActivity: ({ path }) => `Deleting ${path}`,
      execute: () => {
        ran = true;
        return { content: 'deleted' };
      },
    });
    const seen: Array<[ToolCallRequest, boolean, boolean, string]> = [];
    const { result, events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'read_file', arguments: { path: 'a.md' }, callId: 'read' },
            { name: 'remove_file', arguments: { path: 'a.md' }, callId: 'remove' },
          ],
        },
        { text: 'I may not delete it.' },
      ],
      {
        tools: [readFile, remove],
        beforeToolCall: (call, tool) => {
          seen.push([call, tool.isReadOnly, tool.isDestructive, tool.executionMode]);
          return tool.isDestructive ? { allow: false, reason: 'deleting needs approval' } : { allow: true };
        },
      },
    );
    expect(ran).toBe(false);
    expect(seen.map(([call, ...flags]) => [call.callId, call.params, ...flags])).toEqual([
      ['read', { path: 'a.md' }, true, false, 'parallel'],
      ['remove', { path: 'a.md' }, false, true, 'sequential'],
    ]);
    expect(server.requests[1]?.functionCallOutputs).toEqual([
      { callId: 'read', output: 'text of a.md' },
      { callId: 'remove', output: 'Tool call denied: deleting needs approval' },
    ]);
    expect(toolCallEnds(events).map((event) => event.outcome)).toEqual(['completed', 'denied']);
    expect(events.some((event) => event.type === 'tool-call-start' && event.callId === 'remove')).toBe(false);
    expect(result.status).toBe('completed');
  });
});

describe('beforeToolCall failing closed', () => {
  it('denies when the hook throws or gives no answer', async () => {
    let calls = 0;
    const { server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'read_file', arguments: { path: 'a' }, callId: 'throws' },
            { name: 'read_file', arguments: { path: 'b' }, callId: 'silent' },
          ],
        },
        { text: 'ok' },
      ],
      {
        tools: [readFile],
        beforeToolCall: (call) => {
          calls += 1;
          if (call.callId === 'throws') throw new Error('policy service down');
          return undefined as never;
        },
      },
    );
    expect(calls).toBe(2);
    expect(server.requests[1]?.functionCallOutputs).toEqual([
      { callId: 'throws', output: 'Tool call denied: the approval check failed: policy service down' },
      { callId: 'silent', output: 'Tool call denied: no reason given' },
    ]);
  });
});

describe('endsTurn', () => {
  it('stops after the current batch: no further request, later calls skipped, status ended-by-tool', async () => {
    const submit = defineWorkerTool({
      name: 'submit_result',
      description: 'Submit the result and end the turn.',
      schema: z.object({ answer: z.string() }),
      executionMode: 'parallel',
      describeActivity: () => 'Submitting',
      execute: ({ answer }) => ({
        content: `submitted ${answer}`,
        endsTurn: true,
      }),
    });
    const { result, events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'submit_result', arguments: { answer: '42' }, callId: 'submit' },
            { name: 'read_file', arguments: { path: 'same-batch.md' }, callId: 'sibling' },
            { name: 'remove_note', arguments: {}, callId: 'later' },
          ],
        },
      ],
      {
        tools: [
          submit,
          readFile,
          // Sequential, so in a batch of its own.
          bareTool('remove_note', () => ({ content: 'removed' }), 'sequential'),
        ],
      },
    );
    expect(result.status).toBe('ended-by-tool');
    expect(server.requests).toHaveLength(1);
    const outputs = result.items.filter((item) => item.type === 'function_call_output');
    expect(outputs.map((item) => [item.call_id, item.output])).toEqual([
      ['submit', 'submitted 42'],
      ['sibling', 'text of same-batch.md'],
      ['later', 'skipped: an earlier call of this response ended the turn'],
    ]);
    expect(toolCallEnds(events).find((event) => event.callId === 'submit')).toMatchObject({
      endsTurn: true,
    });
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', status: 'ended-by-tool', iterations: 1 });
  });
});

describe('abort handling', () => {
  it('signals running tools and gives every pending call a cancelled output', async () => {
    const controller = new AbortController();
    const signalled: string[] = [];
    const wait = defineWorkerTool({
      name: 'wait',
      description: 'Waits until aborted.',
      schema: z.object({ id: z.string() }),
      executionMode: 'parallel',
      describeActivity: ({ id }) => `Waiting ${id}`,
      execute: ({ id }, context) =>
        new Promise<AgentToolResult>((_, reject) => {
          context.signal.addEventListener('abort', () => {
            signalled.push(id);
            reject(context.signal.reason);
          });
          if (id === 'b') setTimeout(() => controller.abort(new Error('user pressed stop')), 5);
        }),
    });
    const { result, events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'wait', arguments: { id: 'a' }, callId: 'a' },
            { name: 'wait', arguments: { id: 'b' }, callId: 'b' },
            { name: 'read_file', arguments: { path: 'x' }, callId: 'pending-sequential', chunks: 1 },
            { name: 'wait', arguments: { id: 'c' }, callId: 'pending-parallel' },
          ],
        },
      ],
      {
        tools: [wait, defineWorkerTool({ ...readFile, name: 'read_file', executionMode: 'sequential' })],
        signal: controller.signal,
      },
    );
    expect(result.status).toBe('aborted');
    expect(result.error?.message).toBe('user pressed stop');
    expect(signalled.sort()).toEqual(['a', 'b']);
    expect(server.requests).toHaveLength(1);
    const outputs = result.items.filter((item) => item.type === 'function_call_output');
    expect(outputs.map((item) => item.call_id)).toEqual(['a', 'b', 'pending-sequential', 'pending-parallel']);
    for (const output of outputs) expect(output.output).toMatch(/^cancelled/);
    expect(toolCallEnds(events).map((event) => event.outcome)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', status: 'aborted' });
  });

  it('aborts a model request in flight', async () => {
    const controller = new AbortController();
    const { result, events } = await runTurn(
      [
        (request) => {
          setTimeout(() => controller.abort(), 5);
          return { delayMs: 5000, text: `never sent to request ${request.index}` };
        },
      ],
      { tools: [readFile], signal: controller.signal },
    );
    expect(result.status).toBe('aborted');
    expect(result.iterations).toBe(1);
    expect(events.map((event) => event.type)).toEqual(['turn-start', 'model-request-start', 'turn-end']);
  });
});

describe('abort while streaming', () => {
  it('stops reading the stream and ends the turn aborted', async () => {
    const server = await startFakeResponsesServer({
      script: [{ text: 'a long answer that streams slowly', textChunks: 8, eventDelayMs: 10 }],
    });
    try {
      const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
      const controller = new AbortController();
      const run = runAgentLoop({
        model: createResponsesModel({ client, model: 'fake-model' }),
        tools: [readFile],
        input: 'Tell me a story',
        signal: controller.signal,
      });
      const types: string[] = [];
      for await (const event of run) {
        types.push(event.type);
        // Aborting on the first delta: the next one is at least 10 ms away on the wire.
        if (event.type === 'text-delta') controller.abort(new Error('stop streaming'));
      }
      const result = await run.result();
      expect(result.status).toBe('aborted');
      expect(result.error?.message).toBe('stop streaming');
      expect(types.filter((type) => type === 'text-delta')).toHaveLength(1);
      expect(types.at(-1)).toBe('turn-end');
    } finally {
      await server.close();
    }
  });
});

describe('iteration limit', () => {
  it('stops with max-iterations when the model keeps calling tools', async () => {
    const step = { functionCalls: [{ name: 'read_file', arguments: { path: 'again.md' } }] };
    const { result, server } = await runTurn([step, step, step], { tools: [readFile], maxIterations: 2 });
    expect(result.status).toBe('max-iterations');
    expect(result.iterations).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(result.items.at(-1)).toMatchObject({ type: 'function_call_output', output: 'text of again.md' });
  });
});
