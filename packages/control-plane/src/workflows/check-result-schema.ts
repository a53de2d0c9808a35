import type { JSONSchemaObject } from '@switchyard/core';
import { isPlainObject, toJSONPointer, toStrictJSONSchema } from '@switchyard/core/internal';
import { checkStoredJson } from '../values/check-stored-value';

/** Limits of the closed result-schema shapes. */
export const RESULT_SCHEMA_LIMITS = {
  /** Deepest nesting of objects and arrays (the root object is depth 1). */
  maxDepth: 5,
  /** Most properties, counted over every object of the schema. */
  maxProperties: 100,
  /** Most values in one `enum`. */
  maxEnumValues: 100,
  /** Largest schema, as JSON text. */
  maxBytes: 16 * 1024,
} as const;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const ALLOWED_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
]);

class ShapeRefusal extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

function pointer(path: readonly string[]): string {
  return toJSONPointer(path) || '/';
}

interface WalkState {
  properties: number;
}

function walk(node: unknown, path: string[], depth: number, state: WalkState): void {
  const at = pointer(path);
  if (!isPlainObject(node)) throw new ShapeRefusal(at, 'must be a schema object');
  for (const key of Object.keys(node)) {
    if (!ALLOWED_KEYWORDS.has(key)) {
      throw new ShapeRefusal(
        at,
        `keyword '${key}' is not supported (allowed: ${[...ALLOWED_KEYWORDS].join(', ')})`,
      );
    }
  }
  for (const key of ['description', 'title'] as const) {
    if (key in node && typeof node[key] !== 'string') throw new ShapeRefusal(at, `'${key}' must be a string`);
  }
  if ('anyOf' in node) {
    const branches = node.anyOf;
    const keys = Object.keys(node).filter((key) => key !== 'description' && key !== 'title');
    if (keys.length !== 1) {
      throw new ShapeRefusal(at, "'anyOf' must stand alone (only a description or title beside it)");
    }
    if (path.length === 0) throw new ShapeRefusal(at, 'the root must be an object schema, not anyOf');
    const isNull = (branch: unknown) =>
      isPlainObject(branch) && branch.type === 'null' && Object.keys(branch).length === 1;
    if (
      !Array.isArray(branches) ||
      branches.length !== 2 ||
      branches.filter(isNull).length !== 1 ||
      branches.every(isNull)
    ) {
      throw new ShapeRefusal(
        at,
        '\'anyOf\' is only supported as [<schema>, { "type": "null" }] for a value that may be null',
      );
    }
    const index = branches.findIndex((branch) => !isNull(branch));
    walk(branches[index], [...path, 'anyOf', String(index)], depth, state);
    return;
  }
  const { type } = node;
  if (typeof type !== 'string') {
    throw new ShapeRefusal(
      at,
      "'type' must be one of object, array, string, number, integer, boolean, null (one type; use anyOf with null for nullable values)",
    );
  }
  if (type === 'object') {
    if (depth > RESULT_SCHEMA_LIMITS.maxDepth) {
      throw new ShapeRefusal(at, `nesting deeper than ${RESULT_SCHEMA_LIMITS.maxDepth} levels`);
    }
    if (node.additionalProperties !== false) {
      throw new ShapeRefusal(at, "an object must set 'additionalProperties': false");
    }
    if (!isPlainObject(node.properties)) throw new ShapeRefusal(at, "an object needs 'properties'");
    const names = Object.keys(node.properties);
    const required = node.required;
    if (!Array.isArray(required) || required.some((name) => typeof name !== 'string')) {
      throw new ShapeRefusal(at, "'required' must list every property");
    }
    const missing = names.filter((name) => !required.includes(name));
    if (missing.length > 0) {
      throw new ShapeRefusal(
        at,
        `every property must be required; missing from 'required': ${missing.join(', ')} (use anyOf with null for an optional value)`,
      );
    }
    const unknown = (required as string[]).filter((name) => !names.includes(name));
    if (unknown.length > 0 || new Set(required).size !== required.length) {
      throw new ShapeRefusal(at, `'required' names properties that are not declared or repeats one`);
    }
    for (const name of names) {
      state.properties += 1;
      if (state.properties > RESULT_SCHEMA_LIMITS.maxProperties) {
        throw new ShapeRefusal(at, `more than ${RESULT_SCHEMA_LIMITS.maxProperties} properties in all`);
      }
      walk(node.properties[name], [...path, 'properties', name], depth + 1, state);
    }
    if ('items' in node || 'enum' in node) throw new ShapeRefusal(at, "an object takes no 'items' or 'enum'");
    return;
  }
  if ('properties' in node || 'required' in node || 'additionalProperties' in node) {
    throw new ShapeRefusal(at, `object keywords on a ${type} schema`);
  }
  if (type === 'array') {
    if (depth > RESULT_SCHEMA_LIMITS.maxDepth) {
      throw new ShapeRefusal(at, `nesting deeper than ${RESULT_SCHEMA_LIMITS.maxDepth} levels`);
    }
    if (!('items' in node)) throw new ShapeRefusal(at, "an array needs an 'items' schema");
    if ('enum' in node) throw new ShapeRefusal(at, "an array takes no 'enum'");
    walk(node.items, [...path, 'items'], depth + 1, state);
    return;
  }
  if (!SCALAR_TYPES.has(type)) {
    throw new ShapeRefusal(
      at,
      `type '${type}' is not supported (object, array, string, number, integer, boolean, null)`,
    );
  }
  if ('items' in node) throw new ShapeRefusal(at, `'items' on a ${type} schema`);
  if ('enum' in node) {
    const values = node.enum;
    if (!Array.isArray(values) || values.length === 0 || values.length > RESULT_SCHEMA_LIMITS.maxEnumValues) {
      throw new ShapeRefusal(
        at,
        `'enum' must be a list of 1 to ${RESULT_SCHEMA_LIMITS.maxEnumValues} values`,
      );
    }
    const fits = (value: unknown) =>
      type === 'string'
        ? typeof value === 'string'
        : type === 'integer'
          ? Number.isInteger(value)
          : type === 'number'
            ? typeof value === 'number'
            : type === 'boolean'
              ? typeof value === 'boolean'
              : value === null;
    if (!values.every(fits)) throw new ShapeRefusal(at, `every 'enum' value must be a ${type}`);
  }
}

/** The outcome of `checkResultSchema`. */
export type ResultSchemaCheck =
  | {
      /** The schema is one of the closed shapes. */
      ok: true;
      /** Its canonical form (strict mode's key order): what is stored and sent as `submit_result`'s schema. */
      schema: JSONSchemaObject;
    }
  | {
      /** The schema is refused. */
      ok: false;
      /** A JSON pointer into the schema. */
      path: string;
      /** What is wrong there. */
      message: string;
    };

/**
 * Checks that a task's result schema is one of the closed shapes strict mode and the server-side
 * validator agree on: an object root, `additionalProperties: false` and every property required on
 * every object, types string/number/integer/boolean/null, enums, arrays and nested objects of the
 * same kind, `anyOf` with null for nullable values, within depth and size limits.
 *
 * Contract: never throws; a refusal names the JSON pointer of the offending schema node.
 */
export function checkResultSchema(schema: unknown): ResultSchemaCheck {
  // Everything below looks at the schema as it will be stored (its JSON round trip), so an enum value
  // of 1e999 (Infinity, which JSON would write as null) is refused rather than stored as null.
  const stored = checkStoredJson(schema, { maxBytes: Number.POSITIVE_INFINITY });
  if (!stored.ok) return { ok: false, path: stored.pointer ?? '/', message: stored.message };
  if (Buffer.byteLength(stored.text, 'utf8') > RESULT_SCHEMA_LIMITS.maxBytes) {
    return { ok: false, path: '/', message: `is over ${RESULT_SCHEMA_LIMITS.maxBytes} bytes of JSON` };
  }
  const value = stored.value;
  if (!isPlainObject(value) || value.type !== 'object') {
    return { ok: false, path: '/', message: "the root must be an object schema ('type': 'object')" };
  }
  try {
    walk(value, [], 1, { properties: 0 });
  } catch (error) {
    if (error instanceof ShapeRefusal) return { ok: false, path: error.path, message: error.message };
    throw error;
  }
  const projected = toStrictJSONSchema(value);
  if (!projected.ok) return { ok: false, path: '/', message: projected.reason };
  return { ok: true, schema: projected.schema };
}
