import { collectToolSchemas } from '@switchyard/core';
import { describePublicApi } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { configErrorThrown } from './__fixtures__/config-error-thrown';
import * as publicApi from './index';
import { createWebTools } from './index';

describe('createWebTools: tools exist only where bound', () => {
  it('returns no tools when nothing is bound', () => {
    expect(createWebTools({})).toEqual([]);
    expect(createWebTools()).toEqual([]);
    expect(createWebTools({ search: null, fetch: false })).toEqual([]);
    expect(createWebTools({ fetch: null })).toEqual([]);
  });

  it('returns web_search for a provider profile and web_fetch when fetch is enabled, in that order', () => {
    const search = { provider: 'searxng', baseUrl: 'http://127.0.0.1:8888' } as const;
    expect(createWebTools({ search }).map((tool) => tool.name)).toEqual(['web_search']);
    expect(createWebTools({ fetch: true }).map((tool) => tool.name)).toEqual(['web_fetch']);
    expect(createWebTools({ search, fetch: { timeoutMs: 5000 } }).map((tool) => tool.name)).toEqual([
      'web_search',
      'web_fetch',
    ]);
  });

  it('defines read-only parallel tools whose schemas are strict', () => {
    const tools = createWebTools({ search: { provider: 'brave', apiKey: 'k' }, fetch: true });
    for (const tool of tools) {
      expect(tool).toMatchObject({ executionMode: 'parallel', isReadOnly: true, isDestructive: false });
    }
    const { entries } = collectToolSchemas(tools);
    expect(entries.map((entry) => [entry.key, entry.strict, entry.fallbackReason])).toEqual([
      ['web_search', true, undefined],
      ['web_fetch', true, undefined],
    ]);
  });

  it('throws a configuration error naming the field for bad configuration', () => {
    const attempts: [unknown, string][] = [
      [{ fetch: 'yes' }, 'fetch'],
      [{ fetch: { maxRedirects: -1 } }, 'fetch.maxRedirects'],
      [{ search: { provider: 'google' } }, 'search.provider'],
      [{ search: 'brave' }, 'search'],
    ];
    for (const [context, field] of attempts) {
      expect(configErrorThrown(() => createWebTools(context as never)).field).toBe(field);
    }
  });
});

describePublicApi('@switchyard/tools-web', {
  source: new URL('./index.ts', import.meta.url),
  module: publicApi,
  runtime: ['WebToolsConfigError', 'checkUrl', 'createWebTools'],
  types: [
    'BraveSearchProfile',
    'CheckUrlOptions',
    'CheckUrlResult',
    'LookupAddress',
    'LookupFunction',
    'SearchProfileBase',
    'SearxngSearchProfile',
    'TavilySearchProfile',
    'WebFetchDetails',
    'WebFetchOptions',
    'WebSearchDetails',
    'WebSearchProfile',
    'WebSearchResult',
    'WebToolsContext',
  ],
});
