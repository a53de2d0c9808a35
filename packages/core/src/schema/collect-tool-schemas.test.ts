import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolDefinitionError } from '../errors/tool-definition-error';
import { defineWorkerTool } from '../tool/define-worker-tool';
import type { JSONSchemaObject } from '../tool/worker-agent-tool';
import { collectToolSchemas } from './collect-tool-schemas';
import { zodConversionCount } from './zod-to-json-schema';

function tool(
  name: string,
  options: {
    namespace?: string;
    namespaceDescription?: string;
    deferLoading?: boolean;
    schema?: z.ZodType<Record<string, unknown>>;
    jsonSchema?: JSONSchemaObject;
    strict?: boolean | 'auto';
  } = {},
) {
  const { schema, jsonSchema, ...rest } = options;
  const common = {
    name,
    description: `The ${name} tool.`,
    ...rest,
    describeActivity: () => name,
    execute: () => ({ content: name }),
  };
  return jsonSchema === undefined
    ? defineWorkerTool({ ...common, schema: schema ?? z.object({ q: z.string() }) })
    : defineWorkerTool({ ...common, jsonSchema });
}

describe('function tools', () => {
  it('sends strict function tools in tool-set order', () => {
    const manifest = collectToolSchemas([tool('b'), tool('a')]);
    // What `tool(name)` (its default `{ q: string }` schema) is sent as.
    const sentAs = (name: string) => ({
      type: 'function',
      name,
      description: `The ${name} tool.`,
      parameters: {
        type: 'object',
        properties: { q: { type: 'string' } },
        required: ['q'],
        additionalProperties: false,
      },
      strict: true,
    });
    expect(manifest.tools).toEqual([sentAs('b'), sentAs('a')]);
    expect(manifest.entries.map((entry) => [entry.key, entry.strict, entry.deferred, entry.sent])).toEqual([
      ['b', true, false, true],
      ['a', true, false, true],
    ]);
    expect(manifest.bytes).toBe(Buffer.byteLength(JSON.stringify(manifest.tools)));
    expect(manifest.entries[0]?.bytes).toBe(Buffer.byteLength(JSON.stringify(manifest.tools[0])));
  });

  it('falls back to non-strict with the reason when strict mode cannot express the schema', () => {
    const manifest = collectToolSchemas([
      tool('tags', { schema: z.object({ tags: z.record(z.string(), z.string()) }) }),
    ]);
    expect(manifest.tools[0]).toMatchObject({
      strict: false,
      parameters: { properties: { tags: { additionalProperties: { type: 'string' } } } },
    });
    expect(manifest.entries[0]?.fallbackReason).toMatch(/record/);
  });

  it('sends a tool that opted out of strict mode non-strict, with no fallback reason', () => {
    const manifest = collectToolSchemas([
      tool('loose', { strict: false, schema: z.object({ q: z.string().optional() }) }),
    ]);
    expect(manifest.tools[0]).toMatchObject({
      strict: false,
      parameters: { properties: { q: { type: 'string' } } },
    });
    expect(manifest.entries[0]?.fallbackReason).toBeUndefined();
  });

  it('refuses two tools with one key', () => {
    expect(() => collectToolSchemas([tool('a'), tool('a')])).toThrow(ToolDefinitionError);
  });
});

describe('external jsonSchema', () => {
  it('sends the schema byte-for-byte unchanged, constraints kept', () => {
    const jsonSchema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1, maximum: 10, 'x-vendor': true },
        s: { type: 'string', minLength: 3 },
      },
      required: ['n'],
    };
    const before = JSON.stringify(jsonSchema);
    const manifest = collectToolSchemas([tool('external', { jsonSchema })]);
    const sent = manifest.tools[0];
    expect(sent?.type === 'function' && sent.parameters).toBe(jsonSchema);
    expect(sent).toMatchObject({ strict: false });
    expect(JSON.stringify(manifest.tools)).toContain(before);
    expect(JSON.stringify(jsonSchema)).toBe(before);
    expect(manifest.entries[0]).toMatchObject({
      external: true,
      strict: false,
      fallbackReason: 'external schema sent unchanged',
    });
  });

  it('states no reason for an external schema whose tool opted out of strict mode', () => {
    const jsonSchema = { type: 'object', properties: { q: { type: 'string' } } };
    const manifest = collectToolSchemas([tool('opted_out', { jsonSchema, strict: false })]);
    expect(manifest.entries[0]?.strict).toBe(false);
    expect(manifest.entries[0]?.fallbackReason).toBeUndefined();
  });

  it("projects an external schema with strict: 'auto', moving what strict mode does not take", () => {
    const jsonSchema = {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 }, depth: { type: 'integer', minimum: 0 } },
      required: ['path'],
    };
    const before = JSON.stringify(jsonSchema);
    const manifest = collectToolSchemas([tool('tree', { jsonSchema, strict: 'auto' })]);
    expect(manifest.tools[0]).toEqual({
      type: 'function',
      name: 'tree',
      description: 'The tree tool.',
      strict: true,
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: '(at least 1 character)' },
          depth: { type: ['integer', 'null'], minimum: 0 },
        },
        required: ['path', 'depth'],
        additionalProperties: false,
      },
    });
    expect(manifest.entries[0]).toMatchObject({
      external: true,
      strict: true,
      movedKeywords: ['minLength at /properties/path'],
    });
    expect(manifest.entries[0]?.fallbackReason).toBeUndefined();
    expect(JSON.stringify(jsonSchema)).toBe(before);
  });

  it("sends an external schema unchanged with strict: 'auto' when it cannot be strict, saying why", () => {
    const jsonSchema = { type: 'object', properties: { meta: { type: 'object' } } };
    const manifest = collectToolSchemas([tool('open', { jsonSchema, strict: 'auto' })]);
    expect((manifest.tools[0] as { parameters: unknown }).parameters).toBe(jsonSchema);
    expect(manifest.entries[0]).toMatchObject({ strict: false });
    expect(manifest.entries[0]?.fallbackReason).toMatch(
      /^external schema sent unchanged: an open object .* at \/properties\/meta/,
    );
  });

  it('sends an already strict external schema with strict: true when asked', () => {
    const jsonSchema = {
      type: 'object',
      properties: { answer: { type: 'string' } },
      required: ['answer'],
      additionalProperties: false,
    };
    const manifest = collectToolSchemas([tool('submit_result', { jsonSchema, strict: true })]);
    expect(manifest.tools[0]).toMatchObject({ strict: true });
    expect((manifest.tools[0] as { parameters: unknown }).parameters).toBe(jsonSchema);
  });
});

describe('projected Zod schemas', () => {
  it('sends a schema with length limits strict and says which keywords moved', () => {
    const manifest = collectToolSchemas([
      tool('rename', { schema: z.object({ title: z.string().min(1).max(80) }) }),
    ]);
    expect(manifest.tools[0]).toMatchObject({
      strict: true,
      parameters: { properties: { title: { type: 'string', description: '(1 to 80 characters)' } } },
    });
    expect(manifest.entries[0]).toMatchObject({
      strict: true,
      movedKeywords: ['minLength at /properties/title', 'maxLength at /properties/title'],
    });
  });
});

describe('namespace grouping', () => {
  it('groups tools of one namespace where the first of them stands', () => {
    const manifest = collectToolSchemas([
      tool('add', { namespace: 'calc', namespaceDescription: 'A calculator.' }),
      tool('read'),
      tool('sub', { namespace: 'calc' }),
      tool('get', { namespace: 'crm' }),
    ]);
    expect(
      manifest.tools.map((entry) => [
        entry.type,
        'name' in entry ? entry.name : '',
        entry.type === 'namespace' ? entry.tools.map((t) => t.name) : [],
      ]),
    ).toEqual([
      ['namespace', 'calc', ['add', 'sub']],
      ['function', 'read', []],
      ['namespace', 'crm', ['get']],
    ]);
    expect(manifest.tools[0]).toMatchObject({ description: 'A calculator.' });
    expect(manifest.tools[2]).toMatchObject({ description: 'Tools of crm' });
    expect(manifest.entries.map((entry) => entry.key)).toEqual(['calc.add', 'read', 'calc.sub', 'crm.get']);
  });
});

describe('deferred tools', () => {
  const tools = [
    tool('read'),
    tool('add', { namespace: 'calc', deferLoading: true }),
    tool('lookup', { deferLoading: true }),
  ];

  it('native: marks deferred tools and adds one tool_search tool', () => {
    const manifest = collectToolSchemas(tools, { toolSearch: 'native' });
    expect(manifest.tools).toHaveLength(4);
    expect(manifest.tools[1]).toMatchObject({
      type: 'namespace',
      tools: [{ name: 'add', defer_loading: true }],
    });
    expect(manifest.tools[2]).toMatchObject({ name: 'lookup', defer_loading: true });
    expect(manifest.tools[3]).toEqual({ type: 'tool_search' });
    expect(manifest.tools[0]).not.toHaveProperty('defer_loading');
    expect(collectToolSchemas(tools).tools).toEqual(manifest.tools);
  });

  it('client: leaves deferred tools out until loaded, then sends them eagerly', () => {
    const first = collectToolSchemas(tools, { toolSearch: 'client' });
    expect(
      first.tools.map((entry) =>
        entry.type === 'namespace' ? entry.name : (entry as { name: string }).name,
      ),
    ).toEqual(['read']);
    expect(first.entries.map((entry) => [entry.key, entry.deferred, entry.sent])).toEqual([
      ['read', false, true],
      ['calc.add', true, false],
      ['lookup', true, false],
    ]);
    const later = collectToolSchemas(tools, { toolSearch: 'client', loadedTools: new Set(['calc.add']) });
    expect(later.tools).toHaveLength(2);
    expect(later.tools[1]).toMatchObject({ type: 'namespace', name: 'calc', tools: [{ name: 'add' }] });
    expect(JSON.stringify(later.tools)).not.toContain('defer_loading');
    expect(JSON.stringify(later.tools)).not.toContain('tool_search');
  });

  it('sends no tool_search when nothing is deferred', () => {
    expect(JSON.stringify(collectToolSchemas([tool('read')], { toolSearch: 'native' }).tools)).not.toContain(
      'tool_search',
    );
  });
});

describe('conversion cache', () => {
  it('converts nothing when the same tools are collected again', () => {
    const tools = Array.from({ length: 20 }, (_, index) =>
      tool(`tool_${index}`, { schema: z.object({ [`field_${index}`]: z.string().optional() }) }),
    );
    const first = collectToolSchemas(tools);
    expect(first.entries.every((entry) => !entry.cached)).toBe(true);
    const conversions = zodConversionCount();
    const second = collectToolSchemas(tools);
    expect(zodConversionCount()).toBe(conversions);
    expect(second.entries.every((entry) => entry.cached)).toBe(true);
    expect(second.tools).toEqual(first.tools);
  });

  it('converts a shared schema object once, even for tools rebuilt every turn', () => {
    const schema = z.object({ shared: z.string() });
    const before = zodConversionCount();
    for (let turn = 0; turn < 5; turn += 1) collectToolSchemas([tool('rebuilt', { schema })]);
    expect(zodConversionCount() - before).toBe(1);
  });
});
