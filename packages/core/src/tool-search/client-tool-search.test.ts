import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool } from '../tool/define-worker-tool';
import { createToolSearchIndex, tokenize } from './client-tool-search';
import { createClientToolSearch } from './client-tool-search-tool';

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

describe('the tool_search function tool', () => {
  it('is a strict function tool naming the deferred groups', () => {
    const search = createClientToolSearch(tools, new Set());
    expect(search.schema).toMatchObject({ type: 'function', name: 'tool_search', strict: true });
    expect(search.schema.description).toContain(
      'calendar (The user calendar); billing (Invoices and payments); 2 tools outside any group',
    );
  });

  it('loads the best matches not loaded yet, and explains a bad call', () => {
    const loaded = new Set(['calendar.create_event']);
    const search = createClientToolSearch(tools, loaded);
    const { result, loaded: keys } = search.run('{"query": "calendar events", "limit": null}');
    expect(keys).toEqual(['calendar.list_events']);
    expect(result.content).toBe(
      'Loaded 1 tool, callable from your next step:\n- list_events (namespace calendar): List the events of one day.',
    );
    const bad = search.run('{"q": 1}');
    expect(bad.result.isError).toBe(true);
    expect(bad.loaded).toEqual([]);
  });
});
