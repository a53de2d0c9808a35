import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemaAcceptsNull } from '../schema/strict-json-schema';
import { zodToJSONSchema } from '../schema/zod-to-json-schema';
import { isPlainObject } from '../shared/is-plain-object';
import type { JSONSchemaObject } from '../tool/worker-agent-tool';
import { compileNullRestorer, resolveRef } from './compile-null-restorer';

interface TreeNode {
  name: string;
  note?: string;
  children?: TreeNode[];
}
const treeNode: z.ZodType<TreeNode> = z.lazy(() =>
  z.object({ name: z.string(), note: z.string().optional(), children: z.array(treeNode).optional() }),
);

const schemas: Record<string, JSONSchemaObject> = {
  flat: zodToJSONSchema(
    z.object({
      a: z.string(),
      b: z.number().optional(),
      c: z.string().nullable().optional(),
      d: z.null().optional(),
    }),
  ),
  nested: zodToJSONSchema(
    z.object({
      a: z
        .object({ b: z.string().optional(), c: z.array(z.object({ d: z.number().optional() })) })
        .optional(),
      items: z.array(z.object({ a: z.boolean().optional(), b: z.string() })),
    }),
  ),
  union: zodToJSONSchema(
    z.object({
      a: z.union([z.object({ b: z.string().optional() }), z.string()]).optional(),
      c: z.union([z.object({ b: z.number().optional() }), z.object({ d: z.number().optional() })]),
    }),
  ),
  recursive: zodToJSONSchema(z.object({ root: treeNode, children: z.array(treeNode).optional() })),
};

const keys = fc.constantFrom(
  'a',
  'b',
  'c',
  'd',
  'items',
  'name',
  'note',
  'children',
  'root',
  '__proto__',
  'x',
);
const values = fc
  .letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.integer(),
      fc.string({ maxLength: 3 }),
      fc.array(tie('value'), { maxLength: 3 }),
      tie('object'),
    ),
    object: fc.dictionary(keys, tie('value'), { maxKeys: 5 }),
  }))
  // Values come from JSON.parse: plain prototypes, no -0; fast-check also injects `__proto__` keys.
  .object.map((value) => JSON.parse(JSON.stringify(value).replaceAll('"__proto__":', '"proto":')) as unknown);

// The obvious recursive walk, kept here as the reference the compiled restorer must agree with.
function referenceRestore(value: unknown, schema: unknown, root: JSONSchemaObject, depth = 0): unknown {
  if (!isPlainObject(schema) || depth > 64) return value;
  if (typeof schema.$ref === 'string')
    return referenceRestore(value, resolveRef(schema.$ref, root), root, depth + 1);
  if (Array.isArray(value)) {
    return 'items' in schema
      ? value.map((item) => referenceRestore(item, schema.items, root, depth + 1))
      : value;
  }
  if (!isPlainObject(value)) return value;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const objectBranches = branches.filter(
      (branch) =>
        isPlainObject(branch) && (branch.type === 'object' || 'properties' in branch || '$ref' in branch),
    );
    return objectBranches.length === 1 ? referenceRestore(value, objectBranches[0], root, depth + 1) : value;
  }
  const properties = isPlainObject(schema.properties) ? schema.properties : undefined;
  if (!properties) return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const restored: JSONSchemaObject = {};
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (item === null && property !== undefined && !required.has(key) && !schemaAcceptsNull(property))
      continue;
    Object.defineProperty(restored, key, {
      value: property === undefined ? item : referenceRestore(item, property, root, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return restored;
}

describe('compileNullRestorer', () => {
  it.each(Object.keys(schemas))('gives the same result as the reference walk for the %s schema', (name) => {
    const schema = schemas[name] as JSONSchemaObject;
    const restore = compileNullRestorer(schema);
    fc.assert(
      fc.property(values, (value) => {
        const snapshot = JSON.stringify(value);
        expect(restore(value)).toEqual(referenceRestore(value, schema, schema));
        expect(JSON.stringify(value)).toBe(snapshot);
      }),
      { numRuns: 300 },
    );
  });

  it('drops the null of an optional property at any depth and keeps accepted nulls', () => {
    const restore = compileNullRestorer(schemas.recursive as JSONSchemaObject);
    const value = { root: { name: 'a', note: null, children: [{ name: 'b', note: null, children: null }] } };
    expect(restore(value)).toEqual({ root: { name: 'a', children: [{ name: 'b' }] } });
    const flat = compileNullRestorer(schemas.flat as JSONSchemaObject);
    expect(flat({ a: 'x', b: null, c: null, d: null })).toEqual({ a: 'x', c: null, d: null });
  });

  it('returns the very input when there is nothing to drop', () => {
    const value = { items: [{ b: 'x' }], a: { c: [] } };
    expect(compileNullRestorer(schemas.nested as JSONSchemaObject)(value)).toBe(value);
  });

  it('keeps a __proto__ key as an own property, as JSON.parse made it', () => {
    const value = JSON.parse('{"a": "x", "b": null, "__proto__": {"polluted": true}}');
    const restored = compileNullRestorer(schemas.flat as JSONSchemaObject)(value) as Record<string, unknown>;
    expect(Object.hasOwn(restored, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
    expect(Object.keys(restored)).toEqual(['a', '__proto__']);
  });
});
