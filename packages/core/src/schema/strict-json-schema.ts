import { toJSONPointer } from '../arguments/json-pointer';
import { isPlainObject } from '../shared/is-plain-object';
import type { JSONSchemaObject } from '../tool/worker-agent-tool';

/**
 * The outcome of `toStrictJSONSchema`: a strict-mode schema, or why the schema cannot be one.
 * `movedKeywords` lists, as `keyword at /pointer`, each constraint strict mode does not take that
 * was moved into the property's description (empty when none was): the original schema still
 * enforces it when the arguments are validated.
 */
export type StrictJSONSchemaResult =
  | { ok: true; schema: JSONSchemaObject; movedKeywords: string[] }
  | { ok: false; reason: string };

/** Limits of OpenAI strict mode (structured outputs). */
const MAX_NESTING_DEPTH = 10;
const MAX_PROPERTIES = 5000;

/** Keywords kept as they are. */
const PLAIN_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  '$ref',
]);

/**
 * Annotations that constrain nothing the model must produce. They are dropped: strict mode does
 * not accept them, and validation still applies a Zod default after a null maps back to absent.
 */
const DROPPED_ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/**
 * `format` values strict mode takes (OpenAI structured outputs, "Supported schemas"); any other
 * `format` moves into the description like the keywords below.
 */
const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/**
 * Constraints strict mode does not take but a sentence can state. They move into the description
 * (the model reads it) and stay in the original schema, which validation still enforces: a call that
 * breaks one gets an `invalid-arguments` result naming it, nothing runs.
 */
const DESCRIBED_KEYWORDS = new Set([
  'minLength',
  'maxLength',
  'format',
  'uniqueItems',
  'minProperties',
  'maxProperties',
]);

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The sentence for the moved constraints of one node, or a refusal when a value is not meaningful. */
function describeConstraints(
  node: JSONSchemaObject,
  path: readonly string[],
): { text: string; moved: string[] } {
  const parts: string[] = [];
  const moved: string[] = [];
  const range = (minKey: string, maxKey: string, unit: string) => {
    const min = node[minKey];
    const max = node[maxKey];
    if (min === undefined && max === undefined) return;
    for (const [key, value] of [
      [minKey, min],
      [maxKey, max],
    ] as const) {
      if (value === undefined) continue;
      if (!isCount(value)) refuse(`keyword '${key}' at ${pointer(path)} must be a non-negative integer`);
      moved.push(`${key} at ${pointer(path)}`);
    }
    if (isCount(min) && isCount(max)) {
      parts.push(min === max ? `exactly ${plural(min, unit)}` : `${min} to ${plural(max, unit)}`);
    } else if (isCount(min)) parts.push(`at least ${plural(min, unit)}`);
    else if (isCount(max)) parts.push(`at most ${plural(max, unit)}`);
  };
  range('minLength', 'maxLength', 'character');
  range('minProperties', 'maxProperties', 'property');
  if ('format' in node && !STRICT_FORMATS.has(node.format as string)) {
    if (typeof node.format !== 'string') refuse(`keyword 'format' at ${pointer(path)} must be a string`);
    parts.push(`format: ${node.format}`);
    moved.push(`format at ${pointer(path)}`);
  }
  if ('uniqueItems' in node) {
    if (typeof node.uniqueItems !== 'boolean')
      refuse(`keyword 'uniqueItems' at ${pointer(path)} must be a boolean`);
    if (node.uniqueItems) parts.push('items must be unique');
    moved.push(`uniqueItems at ${pointer(path)}`);
  }
  return { text: parts.length === 0 ? '' : `(${parts.join('; ')})`, moved };
}

/** Keywords this function handles itself. */
const STRUCTURAL_KEYWORDS = new Set([
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  '$defs',
  'definitions',
  'propertyNames',
]);

class StrictRefusal extends Error {}

function refuse(reason: string): never {
  throw new StrictRefusal(reason);
}

function pointer(path: readonly string[]): string {
  return toJSONPointer(path) || '/';
}

/** True when the schema already accepts `null`. */
export function schemaAcceptsNull(schema: unknown): boolean {
  if (!isPlainObject(schema)) return schema === true;
  if (schema.type === 'null') return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  if ('const' in schema && schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some(schemaAcceptsNull)) return true;
  }
  return false;
}

function makeNullable(schema: JSONSchemaObject): JSONSchemaObject {
  if (schemaAcceptsNull(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  const { type } = schema;
  if ((typeof type === 'string' || Array.isArray(type)) && !('const' in schema) && !('$ref' in schema)) {
    const types = typeof type === 'string' ? [type, 'null'] : [...type, 'null'];
    const enumValues = Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {};
    return { ...schema, type: types, ...enumValues };
  }
  const { description, ...rest } = schema;
  return {
    ...(typeof description === 'string' ? { description } : {}),
    anyOf: [rest, { type: 'null' }],
  };
}

function isZodSafeIntegerBound(key: string, value: unknown, schema: JSONSchemaObject): boolean {
  return (
    schema.type === 'integer' &&
    ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) ||
      (key === 'maximum' && value === Number.MAX_SAFE_INTEGER))
  );
}

/** A `oneOf` whose object branches are told apart by a shared `const` property: exclusive as `anyOf` too. */
function isDiscriminatedUnion(branches: unknown[]): boolean {
  if (branches.length < 2 || !branches.every(isPlainObject)) return false;
  const objects = branches as JSONSchemaObject[];
  const first = objects[0]?.properties;
  if (!isPlainObject(first)) return false;
  return Object.keys(first).some((key) => {
    const seen = new Set<unknown>();
    for (const branch of objects) {
      const properties = branch.properties;
      if (!isPlainObject(properties)) return false;
      const property = properties[key];
      const required = Array.isArray(branch.required) && branch.required.includes(key);
      if (!isPlainObject(property) || !('const' in property) || !required || seen.has(property.const))
        return false;
      seen.add(property.const);
    }
    return true;
  });
}

interface ProjectionState {
  properties: number;
  moved: string[];
}

/**
 * An object schema's part of the projection: closed (`additionalProperties: false`), every property
 * required, the optional ones made nullable. Records and open objects are refused.
 */
function projectObject(
  node: JSONSchemaObject,
  path: string[],
  depth: number,
  state: ProjectionState,
  result: JSONSchemaObject,
): void {
  const additional = node.additionalProperties;
  if (additional !== undefined && additional !== false) {
    refuse(
      isPlainObject(additional) && Object.keys(additional).length > 0
        ? `a record (additionalProperties with a schema) at ${pointer(path)} is not supported in strict mode`
        : `an open object (additional properties allowed) at ${pointer(path)} is not supported in strict mode`,
    );
  }
  // A nested object that names no properties and does not close itself takes any keys: closing
  // it would leave the model only `{}`.
  if (path.length > 0 && !('properties' in node) && additional !== false) {
    refuse(
      `an open object (additional properties allowed) at ${pointer(path)} is not supported in strict mode`,
    );
  }
  if ('propertyNames' in node)
    refuse(`keyword 'propertyNames' at ${pointer(path)} is not supported in strict mode`);
  const properties = isPlainObject(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const projected: JSONSchemaObject = {};
  for (const [name, property] of Object.entries(properties)) {
    state.properties += 1;
    if (state.properties > MAX_PROPERTIES) {
      refuse(`more than ${MAX_PROPERTIES} properties in all exceeds strict mode's limit`);
    }
    path.push('properties', name);
    const child = project(property, path, depth + 1, state);
    path.length -= 2;
    projected[name] = required.has(name) ? child : makeNullable(child);
  }
  result.properties = projected;
  result.required = Object.keys(projected);
  result.additionalProperties = false;
}

// `path` is one array shared by the whole walk: each call pushes its child's segments before
// descending and pops them after, so no node copies it (pointers are built only for messages). A
// refusal throws out of the walk, so a path left unpopped is never read again.
function project(node: unknown, path: string[], depth: number, state: ProjectionState): JSONSchemaObject {
  if (!isPlainObject(node)) {
    refuse(
      `a schema that is not an object (${JSON.stringify(node)}) at ${pointer(path)} is not supported in strict mode`,
    );
  }
  if (depth > MAX_NESTING_DEPTH) {
    refuse(`nesting deeper than ${MAX_NESTING_DEPTH} levels at ${pointer(path)} exceeds strict mode's limit`);
  }
  const keys = Object.keys(node);
  if (!keys.some((key) => !DROPPED_ANNOTATIONS.has(key) && key !== 'description' && key !== 'title')) {
    refuse(`an unconstrained schema (any value) at ${pointer(path)} is not supported in strict mode`);
  }

  const result: JSONSchemaObject = {};
  // Most nodes move nothing into their description: skip building the sentence for them.
  let hasDescribedKeyword = false;
  for (const key of keys) {
    const value = node[key];
    if (DESCRIBED_KEYWORDS.has(key)) hasDescribedKeyword = true;
    if (DROPPED_ANNOTATIONS.has(key) || isZodSafeIntegerBound(key, value, node)) continue;
    if (PLAIN_KEYWORDS.has(key) || (key === 'format' && STRICT_FORMATS.has(value as string))) {
      result[key] = value;
      continue;
    }
    if (!STRUCTURAL_KEYWORDS.has(key) && !DESCRIBED_KEYWORDS.has(key)) {
      refuse(`keyword '${key}' at ${pointer(path)} is not supported in strict mode`);
    }
  }

  if (hasDescribedKeyword) {
    const described = describeConstraints(node, path);
    if (described.text !== '') {
      const { description } = node;
      result.description =
        typeof description === 'string' && description !== ''
          ? `${description} ${described.text}`
          : described.text;
    }
    state.moved.push(...described.moved);
  }

  const isObject = node.type === 'object' || (node.type === undefined && 'properties' in node);
  if (isObject) {
    projectObject(node, path, depth, state, result);
  } else if ('properties' in node || 'required' in node || 'additionalProperties' in node) {
    refuse(`object keywords on a non-object schema at ${pointer(path)} are not supported in strict mode`);
  }

  if ('items' in node) {
    if (Array.isArray(node.items)) refuse(`tuple items at ${pointer(path)} are not supported in strict mode`);
    path.push('items');
    result.items = project(node.items, path, depth + 1, state);
    path.length -= 1;
  }

  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!(key in node)) continue;
    const branches = node[key];
    if (!Array.isArray(branches) || branches.length === 0) {
      refuse(`'${key}' at ${pointer(path)} must be a non-empty array`);
    }
    if (path.length === 0) refuse(`'${key}' at the root is not supported in strict mode`);
    if (key === 'oneOf' && !isDiscriminatedUnion(branches)) {
      refuse(
        `'oneOf' at ${pointer(path)} is not supported in strict mode (only discriminated unions map to anyOf)`,
      );
    }
    const projected = branches.map((branch, index) => {
      path.push(key, String(index));
      const child = project(branch, path, depth + 1, state);
      path.length -= 2;
      return child;
    });
    result.anyOf = [...(Array.isArray(result.anyOf) ? result.anyOf : []), ...projected];
  }

  for (const key of ['$defs', 'definitions'] as const) {
    const definitions = node[key];
    if (definitions === undefined) continue;
    if (!isPlainObject(definitions)) refuse(`'${key}' at ${pointer(path)} must be an object`);
    const projected: JSONSchemaObject = {};
    for (const [name, definition] of Object.entries(definitions)) {
      path.push(key, name);
      projected[name] = project(definition, path, 0, state);
      path.length -= 2;
    }
    result[key] = projected;
  }

  return result;
}

/**
 * Projects a JSON Schema onto what OpenAI strict mode accepts: every property required, optional
 * ones made nullable, `additionalProperties: false` on every object. Constraints strict mode does
 * not take but a sentence can state (`minLength`, `maxLength`, a `format` outside strict mode's
 * list, `uniqueItems`, `minProperties`, `maxProperties`) move into the description, listed in
 * `movedKeywords`; validation against the original schema still enforces them. A schema that
 * strict mode cannot express faithfully is refused with a reason instead of being turned into a
 * wrong schema.
 *
 * Contract: never throws; never mutates its input. `restoreOptionalNulls` undoes the
 * optional-to-nullable step on values the model sends back.
 *
 * @example
 * toStrictJSONSchema({ type: 'object', properties: { limit: { type: 'integer' } } })
 * // { ok: true, schema: { type: 'object', properties: { limit: { type: ['integer', 'null'] } },
 * //   required: ['limit'], additionalProperties: false }, movedKeywords: [] }
 */
export function toStrictJSONSchema(jsonSchema: JSONSchemaObject): StrictJSONSchemaResult {
  if (!isPlainObject(jsonSchema) || jsonSchema.type !== 'object') {
    return { ok: false, reason: 'the root of a strict schema must be an object schema' };
  }
  try {
    const state: ProjectionState = { properties: 0, moved: [] };
    const schema = project(jsonSchema, [], 0, state);
    return { ok: true, schema, movedKeywords: state.moved };
  } catch (error) {
    if (error instanceof StrictRefusal) return { ok: false, reason: error.message };
    throw error;
  }
}
