import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateToolArguments } from '../arguments/validate-tool-arguments';
import { collectToolSchemas } from '../schema/collect-tool-schemas';
import { defineWorkerTool } from '../tool/define-worker-tool';
import { createToolSearchIndex, tokenize } from './client-tool-search';
import { createClientToolSearchTool } from './client-tool-search-tool';

function tool(name: string, description: string, namespace?: string, namespaceDescription?: string) {
  return defineWorkerTool({
    name,
    description,
    schema: z.object({}),
    ...(namespace === undefined ? {} : { namespace }),
    ...(namespaceDescription === undefined ? {} : { namespaceDescription }),
    deferLoading: true,
    describeActivity: () => name,
    execute: () => ({ content: name }),
  });
}

const tools = [
  tool('create_event', 'Create a calendar event.', 'calendar', 'The user calendar'),
  tool('list_events', 'List the events of one day.', 'calendar'),
  tool('send_invoice', 'Email an invoice to a customer.', 'billing', 'Invoices and payments'),
  tool('refundPayment', 'Refund a card payment.', 'billing'),
  tool('forecast', 'Weather forecast for the coming days.'),
  tool('weather', 'Current conditions for a city.'),
];

describe('tokenize', () => {
  it('splits snake_case, camelCase and punctuation into lowercase terms', () => {
    expect(tokenize('refundPayment send_invoice Web-Fetch, v2!')).toEqual([
      'refund',
      'payment',
      'send',
      'invoice',
      'web',
      'fetch',
      'v2',
    ]);
  });
});

describe('BM25 ranking', () => {
  const index = createToolSearchIndex(tools);

  it('ranks a name match above a description-only match', () => {
    const hits = index.search('weather', 5);
    expect(hits.map((hit) => hit.key)).toEqual(['weather', 'forecast']);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 0);
  });

  it('matches namespace descriptions and camelCase names', () => {
    expect(index.search('payments refund', 1).map((hit) => hit.key)).toEqual(['billing.refundPayment']);
    expect(index.search('calendar', 5).map((hit) => hit.key)).toEqual([
      'calendar.create_event',
      'calendar.list_events',
    ]);
  });

  it('prefers the tool matching more of the query', () => {
    expect(index.search('create calendar event', 2).map((hit) => hit.key)).toEqual([
      'calendar.create_event',
      'calendar.list_events',
    ]);
  });

  it('returns nothing for no match, honours the limit and skips excluded keys', () => {
    expect(index.search('quantum teleport', 5)).toEqual([]);
    expect(index.search('calendar', 1)).toHaveLength(1);
    expect(index.search('calendar', 5, new Set(['calendar.create_event'])).map((hit) => hit.key)).toEqual([
      'calendar.list_events',
    ]);
  });
});

describe('the tool_search tool', () => {
  const context = {
    signal: new AbortController().signal,
    toolCallId: 'call',
    idempotencyKey: 'turn:0',
    reportProgress: () => {},
  };

  async function search(rawArguments: string, loaded: ReadonlySet<string> = new Set()) {
    const searchTool = createClientToolSearchTool(tools, loaded);
    const validation = validateToolArguments(searchTool, rawArguments);
    if (!validation.ok) return { validation, result: undefined };
    return { validation, result: await searchTool.execute(validation.params, context) };
  }

  it('is an ordinary worker tool whose schema is sent byte for byte as the hand-written one was', () => {
    const searchTool = createClientToolSearchTool(tools, new Set());
    expect(searchTool).toMatchObject({
      name: 'tool_search',
      executionMode: 'parallel',
      isReadOnly: true,
      isDestructive: false,
    });
    const [schema] = collectToolSchemas([searchTool]).tools;
    // The exact bytes every client-search request has carried: a change here changes every request.
    expect(JSON.stringify(schema)).toBe(
      JSON.stringify({
        type: 'function',
        name: 'tool_search',
        description: `Search the tools that are not loaded yet and load the best matches, callable from your next step. Describe the capability you need in a few keywords. Tools available through search: calendar (The user calendar); billing (Invoices and payments); 2 tools outside any group.`,
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'Keywords for the capability you need' },
            limit: { type: ['integer', 'null'], description: 'Most tools to load (default 5, at most 20)' },
          },
          required: ['query', 'limit'],
          additionalProperties: false,
        },
        strict: true,
      }),
    );
  });

  it('loads the best matches not loaded yet through its result', async () => {
    const { result } = await search(
      '{"query": "calendar events", "limit": null}',
      new Set(['calendar.create_event']),
    );
    expect(result?.loadsTools).toEqual(['calendar.list_events']);
    expect(result?.details).toEqual({ query: 'calendar events', loaded: ['calendar.list_events'] });
    expect(result?.content).toBe(
      'Loaded 1 tool, callable from your next step:\n- list_events (namespace calendar): List the events of one day.',
    );
  });

  it('honours the limit, caps it at 20 and falls back to 5 for one below 1', async () => {
    expect((await search('{"query": "calendar", "limit": 1}')).result?.loadsTools).toHaveLength(1);
    expect(
      (await search('{"query": "calendar event invoice payment weather", "limit": 0}')).result?.loadsTools,
    ).toHaveLength(5);
    expect(
      (await search('{"query": "calendar event invoice payment weather", "limit": 500}')).result?.loadsTools,
    ).toHaveLength(6);
  });

  it('says so when nothing matches, loading nothing', async () => {
    const { result } = await search('{"query": "quantum teleport", "limit": null}');
    expect(result?.content).toBe(
      'No tool that is not loaded yet matched "quantum teleport". Try other keywords.',
    );
    expect(result?.loadsTools).toEqual([]);
  });

  it('has its arguments repaired by the ladder, like any tool', async () => {
    const { validation, result } = await search('{"query": "weather", "limit": 1,}');
    expect(validation.ok && validation.repairs.length > 0).toBe(true);
    expect(result?.loadsTools).toEqual(['weather']);
  });

  it('has bad arguments refused by validation, naming the field', async () => {
    for (const [rawArguments, field] of [
      ['{"q": 1}', 'query'],
      ['{"query": "  ", "limit": null}', 'query'],
      ['{"query": "weather", "limit": 2.5}', 'limit'],
      ['{"query": "weather", "limit": "two"}', 'limit'],
    ] as const) {
      const { validation, result } = await search(rawArguments);
      expect(validation.ok, rawArguments).toBe(false);
      if (!validation.ok) expect(validation.error.message, rawArguments).toContain(field);
      expect(result).toBeUndefined();
    }
  });
});
