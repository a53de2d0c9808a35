import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { restoreOptionalNulls } from '../arguments/compile-null-restorer';
import { toStrictJSONSchema } from './strict-json-schema';
import { zodToJSONSchema } from './zod-to-json-schema';

function strictOf(schema: z.ZodType) {
  return toStrictJSONSchema(zodToJSONSchema(schema));
}

describe('strict projection: golden schemas', () => {
  it('makes optional properties required and nullable, and closes objects', () => {
    expect(strictOf(z.object({ path: z.string(), limit: z.number().int().optional() }))).toEqual({
      ok: true,
      movedKeywords: [],
      schema: {
        type: 'object',
        properties: { path: { type: 'string' }, limit: { type: ['integer', 'null'] } },
        required: ['path', 'limit'],
        additionalProperties: false,
      },
    });
  });

  it('keeps an already nullable property as it is', () => {
    expect(strictOf(z.object({ note: z.string().nullable() }))).toEqual({
      ok: true,
      movedKeywords: [],
      schema: {
        type: 'object',
        properties: { note: { type: ['string', 'null'] } },
        required: ['note'],
        additionalProperties: false,
      },
    });
  });

  it('projects nested objects and arrays of objects', () => {
    const schema = z.object({
      filter: z.object({ tag: z.string().optional(), done: z.boolean() }),
      items: z.array(z.object({ id: z.string(), weight: z.number().optional() })).max(5),
    });
    expect(strictOf(schema)).toEqual({
      ok: true,
      movedKeywords: [],
      schema: {
        type: 'object',
        properties: {
          filter: {
            type: 'object',
            properties: { tag: { type: ['string', 'null'] }, done: { type: 'boolean' } },
            required: ['tag', 'done'],
            additionalProperties: false,
          },
          items: {
            type: 'array',
            maxItems: 5,
            items: {
              type: 'object',
              properties: { id: { type: 'string' }, weight: { type: ['number', 'null'] } },
              required: ['id', 'weight'],
              additionalProperties: false,
            },
          },
        },
        required: ['filter', 'items'],
        additionalProperties: false,
      },
    });
  });

  it('adds null to an optional enum', () => {
    expect(strictOf(z.object({ mode: z.enum(['fast', 'slow']).optional() }))).toEqual({
      ok: true,
      movedKeywords: [],
      schema: {
        type: 'object',
        properties: { mode: { type: ['string', 'null'], enum: ['fast', 'slow', null] } },
        required: ['mode'],
        additionalProperties: false,
      },
    });
  });

  it('keeps unions as anyOf and adds a null branch when optional', () => {
    const schema = z.object({ id: z.union([z.string(), z.object({ n: z.number() })]).optional() });
    expect(strictOf(schema)).toEqual({
      ok: true,
      movedKeywords: [],
      schema: {
        type: 'object',
        properties: {
          id: {
            anyOf: [
              { type: 'string' },
              {
                type: 'object',
                properties: { n: { type: 'number' } },
                required: ['n'],
                additionalProperties: false,
              },
              { type: 'null' },
            ],
          },
        },
        required: ['id'],
        additionalProperties: false,
      },
    });
  });

  it('maps a discriminated union (oneOf) to anyOf', () => {
    const schema = z.object({
      action: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('a') }),
        z.object({ kind: z.literal('b'), v: z.string() }),
      ]),
    });
    const result = strictOf(schema);
    expect(result.ok).toBe(true);
    expect(result.ok && (result.schema.properties as Record<string, unknown>).action).toEqual({
      anyOf: [
        {
          type: 'object',
          properties: { kind: { type: 'string', const: 'a' } },
          required: ['kind'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { kind: { type: 'string', const: 'b' }, v: { type: 'string' } },
          required: ['kind', 'v'],
          additionalProperties: false,
        },
      ],
    });
  });

  it('drops defaults, which validation applies, and zod safe-integer bounds', () => {
    expect(strictOf(z.object({ count: z.number().int().default(3), age: z.number().int().min(0) }))).toEqual({
      ok: true,
      movedKeywords: [],
      schema: {
        type: 'object',
        properties: { count: { type: ['integer', 'null'] }, age: { type: 'integer', minimum: 0 } },
        required: ['count', 'age'],
        additionalProperties: false,
      },
    });
  });

  it('keeps descriptions', () => {
    const result = strictOf(z.object({ q: z.string().describe('The query') }));
    expect(result.ok && result.schema.properties).toEqual({
      q: { type: 'string', description: 'The query' },
    });
  });

  it('keeps a nullable optional description on the anyOf wrapper', () => {
    const result = toStrictJSONSchema({
      type: 'object',
      properties: { r: { $ref: '#/$defs/R', description: 'ref' } },
      $defs: { R: { type: 'string' } },
    });
    expect(result).toEqual({
      ok: true,
      movedKeywords: [],
      schema: {
        type: 'object',
        properties: { r: { description: 'ref', anyOf: [{ $ref: '#/$defs/R' }, { type: 'null' }] } },
        required: ['r'],
        additionalProperties: false,
        $defs: { R: { type: 'string' } },
      },
    });
  });
});

describe('strict projection: constraints moved into descriptions', () => {
  it('states string lengths in the description and lists what moved', () => {
    const schema = z.object({
      title: z.string().max(80).describe('The title'),
      code: z.string().length(6),
      query: z.string().min(2).optional(),
    });
    expect(strictOf(schema)).toEqual({
      ok: true,
      movedKeywords: [
        'maxLength at /properties/title',
        'minLength at /properties/code',
        'maxLength at /properties/code',
        'minLength at /properties/query',
      ],
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string', description: 'The title (at most 80 characters)' },
          code: { type: 'string', description: '(exactly 6 characters)' },
          query: { type: ['string', 'null'], description: '(at least 2 characters)' },
        },
        required: ['title', 'code', 'query'],
        additionalProperties: false,
      },
    });
  });

  it('keeps the formats strict mode takes and describes the others', () => {
    const result = toStrictJSONSchema({
      type: 'object',
      properties: {
        at: { type: 'string', format: 'date-time' },
        link: { type: 'string', format: 'uri', minLength: 1, maxLength: 2048 },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, maxItems: 3 },
      },
      required: ['at', 'link', 'tags'],
    });
    expect(result).toEqual({
      ok: true,
      movedKeywords: [
        'minLength at /properties/link',
        'maxLength at /properties/link',
        'format at /properties/link',
        'uniqueItems at /properties/tags',
      ],
      schema: {
        type: 'object',
        properties: {
          at: { type: 'string', format: 'date-time' },
          link: { type: 'string', description: '(1 to 2048 characters; format: uri)' },
          tags: {
            type: 'array',
            maxItems: 3,
            description: '(items must be unique)',
            items: { type: 'string' },
          },
        },
        required: ['at', 'link', 'tags'],
        additionalProperties: false,
      },
    });
  });

  it('refuses a moved keyword whose value is not meaningful', () => {
    const result = toStrictJSONSchema({
      type: 'object',
      properties: { q: { type: 'string', maxLength: -1 } },
    });
    expect(result).toEqual({
      ok: false,
      reason: "keyword 'maxLength' at /properties/q must be a non-negative integer",
    });
  });

  it('does not touch its input', () => {
    const input = { type: 'object', properties: { q: { type: 'string', minLength: 1 } } };
    const copy = structuredClone(input);
    toStrictJSONSchema(input);
    expect(input).toEqual(copy);
  });
});

describe('strict projection: refusals with reasons', () => {
  it('refuses keywords strict mode does not take and a sentence cannot state', () => {
    const result = toStrictJSONSchema({
      type: 'object',
      properties: { list: { type: 'array', items: { type: 'string' }, contains: { const: 'a' } } },
    });
    expect(!result.ok && result.reason).toBe(
      "keyword 'contains' at /properties/list is not supported in strict mode",
    );
  });

  it.each([
    [
      'records',
      z.object({ tags: z.record(z.string(), z.string()) }),
      /record \(additionalProperties with a schema\) at \/properties\/tags/,
    ],
    [
      'open objects',
      z.object({ meta: z.looseObject({ a: z.string() }) }),
      /open object .* at \/properties\/meta/,
    ],
    ['an unconstrained value', z.object({ v: z.unknown() }), /unconstrained schema .* at \/properties\/v/],
    ['tuples', z.object({ t: z.tuple([z.string(), z.number()]) }), /keyword 'prefixItems'/],
    ['plain oneOf', z.object({ x: z.xor([z.string(), z.number()]) }), /'oneOf' at \/properties\/x/],
  ])('refuses %s', (_label, schema, reason) => {
    const result = strictOf(schema);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('refuses nesting deeper than strict mode allows', () => {
    let schema: z.ZodType = z.object({ leaf: z.string() });
    for (let level = 0; level < 11; level += 1) schema = z.object({ child: schema });
    const result = strictOf(schema);
    expect(!result.ok && result.reason).toMatch(/nesting deeper than 10/);
  });

  it('refuses allOf', () => {
    const result = toStrictJSONSchema({
      type: 'object',
      properties: { x: { allOf: [{ type: 'string' }, { pattern: 'a' }] } },
    });
    expect(result).toEqual({
      ok: false,
      reason: "keyword 'allOf' at /properties/x is not supported in strict mode",
    });
  });

  it('refuses a non-object root', () => {
    expect(toStrictJSONSchema({ type: 'string' })).toEqual({
      ok: false,
      reason: 'the root of a strict schema must be an object schema',
    });
  });

  it('does not mutate its input', () => {
    const input = { type: 'object', properties: { a: { type: 'string' } } };
    const copy = structuredClone(input);
    toStrictJSONSchema(input);
    expect(input).toEqual(copy);
  });
});

describe('restoreOptionalNulls', () => {
  const original = zodToJSONSchema(
    z.object({
      path: z.string(),
      limit: z.number().optional(),
      note: z.string().nullable().optional(),
      nested: z.object({ tag: z.string().optional() }).optional(),
      list: z.array(z.object({ w: z.number().optional() })),
    }),
  );

  it('turns the null of a formerly optional property into absence', () => {
    expect(
      restoreOptionalNulls(
        { path: 'a', limit: null, note: null, nested: { tag: null }, list: [{ w: null }, { w: 2 }] },
        original,
      ),
    ).toEqual({
      path: 'a',
      note: null,
      nested: {},
      list: [{}, { w: 2 }],
    });
  });

  it('keeps a __proto__ key as a key', () => {
    const value = JSON.parse('{"path":"a","__proto__":{"polluted":true},"limit":null}');
    const restored = restoreOptionalNulls(value, original) as Record<string, unknown>;
    expect(Object.keys(restored)).toEqual(['path', '__proto__']);
    expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
    expect((restored as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('leaves a null for a required property for validation to refuse', () => {
    expect(restoreOptionalNulls({ path: null }, original)).toEqual({ path: null });
  });
});
