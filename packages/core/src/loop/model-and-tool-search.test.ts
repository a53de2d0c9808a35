// Core's loop through the real openai SDK against the fake server: the model adapter and Tool Search.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, ModelRequestError } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { readFileTool } from './__fixtures__/test-tools';

function deferred(name: string, namespace: string, description: string, namespaceDescription: string) {
  return defineWorkerTool({
    name,
    namespace,
    namespaceDescription,
    description,
    deferLoading: true,
    schema: z.object({ title: z.string() }),
    describeActivity: ({ title }) => `${name} ${title}`,
    execute: ({ title }) => ({ content: `${namespace}.${name}: ${title}` }),
  });
}

const calendarTools = [
  deferred('create_event', 'calendar', 'Create a calendar event at a time.', 'The user calendar'),
  deferred('list_events', 'calendar', 'List the calendar events of a day.', 'The user calendar'),
  deferred('create_invoice', 'billing', 'Create an invoice for a customer.', 'Billing and invoices'),
];

describe('client-side Tool Search', () => {
  it('leaves deferred schemas out until tool_search selects them, then sends them for the rest of the turn', async () => {
    const { result, events, server } = await runTurn(
      [
        { functionCalls: [{ name: 'tool_search', arguments: { query: 'create calendar event', limit: 1 } }] },
        { functionCalls: [{ name: 'create_event', namespace: 'calendar', arguments: { title: 'Dentist' } }] },
        { text: 'Booked.' },
      ],
      { tools: [readFileTool, ...calendarTools], toolSearch: 'client' },
    );
    expect(result.status).toBe('completed');
    const [first, second, third] = server.requests;
    expect(first?.toolNames).toEqual(['read_file', 'tool_search']);
    expect(JSON.stringify(first?.body.tools)).not.toMatch(/create_event|list_events|create_invoice/);
    expect(first?.body.tools?.find((tool) => tool.name === 'tool_search')?.description).toMatch(
      /calendar \(The user calendar\); billing \(Billing and invoices\)/,
    );
    expect(second?.functionCallOutputs[0]?.output).toMatch(
      /Loaded 1 tool.*\n- create_event \(namespace calendar\)/,
    );
    expect(second?.toolNames).toEqual(['read_file', 'calendar.create_event', 'tool_search']);
    expect(third?.toolNames).toEqual(['read_file', 'calendar.create_event', 'tool_search']);
    expect(third?.functionCallOutputs.at(-1)?.output).toBe('calendar.create_event: Dentist');
    expect(toolCallEnds(events)[0]).toMatchObject({ name: 'tool_search', outcome: 'completed' });
  });

  it('is the default for a non-OpenAI base URL, and says so when nothing matches', async () => {
    const { server, events } = await runTurn(
      [
        { functionCalls: [{ name: 'tool_search', arguments: { query: 'quantum teleport' } }] },
        { text: 'No such tool.' },
      ],
      { tools: [readFileTool, ...calendarTools] },
    );
    expect(events[0]).toMatchObject({ type: 'turn-start', toolSearch: 'client' });
    expect(server.requests[1]?.functionCallOutputs[0]?.output).toMatch(
      /No tool that is not loaded yet matched/,
    );
    expect(server.requests[1]?.toolNames).toEqual(['read_file', 'tool_search']);
  });
});

describe('client-side Tool Search is an ordinary tool', () => {
  it('repairs malformed tool_search arguments through the argument ladder, then loads the match', async () => {
    const { result, events, server } = await runTurn(
      [
        // A trailing comma and a JSON string around the arguments: the ladder repairs both.
        {
          functionCalls: [
            {
              name: 'tool_search',
              arguments: JSON.stringify('{"query": "create calendar event", "limit": 1,}'),
            },
          ],
        },
        { functionCalls: [{ name: 'create_event', namespace: 'calendar', arguments: { title: 'Dentist' } }] },
        { text: 'Booked.' },
      ],
      { tools: [readFileTool, ...calendarTools], toolSearch: 'client' },
    );
    expect(result.status).toBe('completed');
    const end = toolCallEnds(events)[0];
    expect(end).toMatchObject({ name: 'tool_search', outcome: 'completed', isError: false });
    expect(end?.repairs.length).toBeGreaterThan(0);
    expect(server.requests[1]?.toolNames).toEqual(['read_file', 'calendar.create_event', 'tool_search']);
    expect(server.requests[2]?.functionCallOutputs.at(-1)?.output).toBe('calendar.create_event: Dentist');
  });

  it('refuses arguments its schema rejects with an output naming the field, and loads nothing', async () => {
    const { events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'tool_search', arguments: { q: 'calendar' }, callId: 'missing' },
            { name: 'tool_search', arguments: { query: 'calendar', limit: 'two' }, callId: 'wrong-type' },
            { name: 'tool_search', arguments: { query: '   ', limit: null }, callId: 'blank' },
            { name: 'tool_search', arguments: '{"query": "calendar', callId: 'truncated' },
          ],
        },
        { text: 'Gave up.' },
      ],
      { tools: [readFileTool, ...calendarTools], toolSearch: 'client' },
    );
    const ends = toolCallEnds(events);
    expect(ends.map((end) => [end.callId, end.outcome, end.isError])).toEqual([
      ['missing', 'invalid-arguments', true],
      ['wrong-type', 'invalid-arguments', true],
      ['blank', 'invalid-arguments', true],
      ['truncated', 'invalid-arguments', true],
    ]);
    const outputs = new Map(
      server.requests[1]?.functionCallOutputs.map((output) => [output.callId, String(output.output)]),
    );
    expect(outputs.get('missing')).toMatch(/query/);
    expect(outputs.get('wrong-type')).toMatch(/limit/);
    expect(outputs.get('blank')).toMatch(/query/);
    expect(server.requests[1]?.toolNames).toEqual(['read_file', 'tool_search']);
  });

  it('answers unknown names with the available tools, and loads a deferred tool called by its name', async () => {
    const { events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'teleport', arguments: {}, callId: 'unknown' },
            { name: 'create_event', arguments: { title: 'x' }, callId: 'no-namespace' },
            { name: 'list_events', namespace: 'calendar', arguments: { title: 'Monday' }, callId: 'direct' },
          ],
        },
        { text: 'Done.' },
      ],
      { tools: [readFileTool, ...calendarTools], toolSearch: 'client' },
    );
    const ends = toolCallEnds(events);
    expect(ends.map((end) => [end.callId, end.outcome])).toEqual([
      ['unknown', 'unknown-tool'],
      ['no-namespace', 'unknown-tool'],
      ['direct', 'completed'],
    ]);
    const outputs = new Map(
      server.requests[1]?.functionCallOutputs.map((output) => [output.callId, String(output.output)]),
    );
    expect(outputs.get('unknown')).toMatch(
      /^Unknown tool 'teleport'\. Call one of the available tools: .*read_file/,
    );
    expect(outputs.get('no-namespace')).toMatch(/^Unknown tool 'create_event'/);
    expect(outputs.get('direct')).toBe('calendar.list_events: Monday');
    // Called by name without a search, the deferred tool is loaded for the rest of the turn.
    expect(server.requests[1]?.toolNames).toEqual(['read_file', 'calendar.list_events', 'tool_search']);
  });
});

describe('native Tool Search', () => {
  it('sends deferred tools with defer_loading plus tool_search, and dispatches what the hosted search loaded', async () => {
    const { result, server } = await runTurn(
      [
        {
          toolSearch: { query: 'invoice', load: ['billing.create_invoice'] },
          functionCalls: [{ name: 'create_invoice', namespace: 'billing', arguments: { title: 'March' } }],
        },
        { text: 'Invoiced.' },
      ],
      { tools: [readFileTool, ...calendarTools], toolSearch: 'native' },
    );
    expect(result.status).toBe('completed');
    const [first, second] = server.requests;
    expect(first?.toolNames).toEqual([
      'read_file',
      'calendar.create_event',
      'calendar.list_events',
      'billing.create_invoice',
      'tool_search',
    ]);
    expect(first?.deferredToolNames).toEqual([
      'calendar.create_event',
      'calendar.list_events',
      'billing.create_invoice',
    ]);
    const input = second?.body.input as Array<{ type?: string; tools?: unknown[] }>;
    expect(input.map((item) => item.type)).toEqual([
      'message',
      'tool_search_call',
      'tool_search_output',
      'function_call',
      'function_call_output',
    ]);
    expect(JSON.stringify(input[2]?.tools)).toContain('create_invoice');
    expect(second?.functionCallOutputs[0]?.output).toBe('billing.create_invoice: March');
  });
});

describe('model requests', () => {
  it('is stateless by default: store false, the whole transcript replayed, instructions on every request', async () => {
    const { server } = await runTurn(
      [
        {
          reasoning: { summary: 'think', encryptedContent: 'gAAAA-secret' },
          functionCalls: [{ name: 'read_file', arguments: { path: 'a' } }],
        },
        {
          reasoning: { summary: 'not replayable' },
          functionCalls: [{ name: 'read_file', arguments: { path: 'b' } }],
        },
        { text: 'done' },
      ],
      { tools: [readFileTool], instructions: 'Be brief.' },
    );
    const [, second, third] = server.requests;
    expect(third?.body).toMatchObject({
      store: false,
      instructions: 'Be brief.',
      stream: true,
      model: 'fake-model',
    });
    expect(third?.body.previous_response_id).toBeUndefined();
    const types = (third?.body.input as Array<{ type: string; encrypted_content?: string }>).map(
      (item) => item.type,
    );
    // The reasoning item without encrypted content cannot be replayed without store, so it is dropped.
    expect(types).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
      'function_call',
      'function_call_output',
    ]);
    expect((second?.body.input as Array<{ encrypted_content?: string }>)[1]?.encrypted_content).toBe(
      'gAAAA-secret',
    );
  });

  it('chains with previous_response_id when asked: only the new items are sent', async () => {
    const { result, server } = await runTurn(
      [{ functionCalls: [{ name: 'read_file', arguments: { path: 'a' }, callId: 'c1' }] }, { text: 'done' }],
      { tools: [readFileTool], model: { chaining: 'previous-response-id' } },
    );
    const [first, second] = server.requests;
    expect(first?.body.previous_response_id).toBeUndefined();
    expect(first?.body.store).toBe(true);
    expect(second?.body.previous_response_id).toBe('resp_fake_1');
    expect(second?.body.input).toEqual([
      { type: 'function_call_output', call_id: 'c1', output: 'text of a' },
    ]);
    // The result still holds the whole transcript.
    expect(result.items.map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'message',
    ]);
  });

  it('retries a 429 through the SDK maxRetries and completes', async () => {
    const { result, server } = await runTurn([{ httpStatus: 429, message: 'slow down' }, { text: 'hello' }], {
      tools: [readFileTool],
      maxRetries: 2,
    });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('hello');
    expect(server.requests).toHaveLength(2);
    expect(result.iterations).toBe(1);
  });

  it('fails with a clear error when 5xx answers outlast the retries', async () => {
    const { result, events, server } = await runTurn([{ httpStatus: 500 }, { httpStatus: 500 }], {
      tools: [readFileTool],
      maxRetries: 1,
    });
    expect(server.requests).toHaveLength(2);
    expect(result.status).toBe('failed');
    expect(ModelRequestError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toMatch(/^Model request failed \(HTTP 500\)/);
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', status: 'failed' });
  });

  it('fails without hanging when the stream is cut mid-arguments', async () => {
    let ran = false;
    const tool = defineWorkerTool({
      ...readFileTool,
      execute: () => {
        ran = true;
        return { content: 'x' };
      },
    });
    const { result, events } = await runTurn(
      [
        {
          functionCalls: [{ name: 'read_file', arguments: { path: 'long/path/to/file.md' }, chunks: 6 }],
          cut: 'mid-arguments',
        },
      ],
      { tools: [tool] },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.message).toMatch(/^Model response stream broke off/);
    expect(ran).toBe(false);
    expect(events.map((event) => event.type)).toEqual(['turn-start', 'model-request-start', 'turn-end']);
  });

  it('fails when the stream ends before response.completed', async () => {
    const { result } = await runTurn([{ text: 'partial', cut: 'before-completed' }], { tools: [] });
    expect(result.status).toBe('failed');
    expect(result.error?.message).toMatch(/ended before response\.completed/);
  });

  it('fails on response.failed with the reason', async () => {
    const { result } = await runTurn([{ failed: 'model overloaded' }], { tools: [] });
    expect(result.status).toBe('failed');
    expect(result.error?.message).toBe('Model response failed: model overloaded');
  });

  it('works without streaming', async () => {
    const { result, events, server } = await runTurn(
      [{ functionCalls: [{ name: 'read_file', arguments: { path: 'a' } }] }, { text: 'plain' }],
      { tools: [readFileTool], model: { stream: false } },
    );
    expect(server.requests.map((request) => request.body.stream)).toEqual([false, false]);
    expect(result).toMatchObject({ status: 'completed', output: 'plain', iterations: 2 });
    expect(events.filter((event) => event.type === 'text-delta')).toMatchObject([
      { delta: 'plain', iteration: 2 },
    ]);
  });

  it('sums usage over the turn and reports each request', async () => {
    const { result, events } = await runTurn(
      [
        {
          functionCalls: [{ name: 'read_file', arguments: { path: 'a' } }],
          usage: { inputTokens: 100, outputTokens: 7 },
        },
        { text: 'ok', usage: { inputTokens: 120, outputTokens: 3, cachedInputTokens: 90 } },
      ],
      { tools: [readFileTool] },
    );
    expect(result.usage).toEqual({
      inputTokens: 220,
      cachedInputTokens: 90,
      outputTokens: 10,
      reasoningTokens: 0,
      totalTokens: 230,
    });
    expect(
      events.filter((event) => event.type === 'model-request-end').map((event) => event.usage.inputTokens),
    ).toEqual([100, 120]);
  });
});
