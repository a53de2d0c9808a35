import {
  arrayBounds,
  GENERATOR_LIMITS,
  resolveRef,
  type Schema,
  schemaCount,
  schemaTypes,
} from './json-schema-node';
import { minimalParams } from './minimal-params';

/** Most boundary values made for one tool: each is a call of its `execute`. */
export const MAX_BOUNDARY_VALUES = 200;

function stringEnds(node: Schema): unknown[] {
  // A formatted or patterned string keeps the one plausible value: lengths are not its edge.
  if (typeof node.pattern === 'string' || typeof node.format === 'string') return [minimalParams(node)];
  const minLength = schemaCount(node.minLength) ?? 0;
  const maxLength = Math.max(minLength, schemaCount(node.maxLength) ?? GENERATOR_LIMITS.longString);
  return [
    'x'.repeat(minLength),
    'x'.repeat(Math.min(maxLength, Math.max(minLength, GENERATOR_LIMITS.longString))),
  ];
}

function numberEnds(node: Schema, integer: boolean): unknown[] {
  const step = (bound: number) => (integer ? 1 : Number.EPSILON * Math.max(1, Math.abs(bound)));
  const lower =
    typeof node.minimum === 'number'
      ? node.minimum
      : typeof node.exclusiveMinimum === 'number'
        ? node.exclusiveMinimum + step(node.exclusiveMinimum)
        : integer
          ? Number.MIN_SAFE_INTEGER
          : -1e12;
  const upper =
    typeof node.maximum === 'number'
      ? node.maximum
      : typeof node.exclusiveMaximum === 'number'
        ? node.exclusiveMaximum - step(node.exclusiveMaximum)
        : integer
          ? Number.MAX_SAFE_INTEGER
          : 1e12;
  return integer ? [Math.ceil(lower), Math.floor(upper)] : [lower, upper];
}

function arrayEnds(node: Schema, root: Schema, depth: number): unknown[] {
  const { minItems, maxItems, items } = arrayBounds(node);
  const filler = minimalParams(items, root);
  const ends: unknown[] = [
    Array.from({ length: minItems }, () => filler),
    Array.from({ length: maxItems }, () => filler),
  ];
  // Each edge of the items, in an array of the least length that holds one.
  const length = Math.max(1, minItems);
  if (length <= maxItems) {
    for (const edge of boundaryValues(items, root, depth + 1)) {
      ends.push(Array.from({ length }, (_, index) => (index === 0 ? edge : filler)));
    }
  }
  return ends;
}

function objectEnds(node: Schema, root: Schema, depth: number): unknown[] {
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const allPresent: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    allPresent[name] = minimalParams(property, root);
  }
  // Optional fields absent (required ones at their least), then all present, then each field at
  // each of its edges with every other field present.
  const ends: unknown[] = [minimalParams(node, root), allPresent];
  for (const [name, property] of Object.entries(properties)) {
    for (const edge of boundaryValues(property, root, depth + 1)) ends.push({ ...allPresent, [name]: edge });
  }
  return ends;
}

/**
 * The edge values of a JSON Schema node: both ends of a numeric range (the safe integers or ±1e12
 * where it is open), the shortest and the longest string (`maxLength`, else 2000 characters), every
 * enum member, both booleans, each union branch's edges, arrays of the fewest and the most items
 * and with each edge of their items, and for an object: its optional fields absent, all present,
 * and each field at each of its edges. Plausible, not guaranteed valid: callers keep those the
 * tool's own schema accepts.
 */
export function boundaryValues(schema: Schema, root: Schema = schema, depth = 0): unknown[] {
  const node = resolveRef(schema, root);
  if (depth > GENERATOR_LIMITS.maxDepth) return [];
  if ('const' in node) return [node.const];
  if (Array.isArray(node.enum)) return [...node.enum];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.length > 0) {
      return (branches as Schema[]).flatMap((branch) => boundaryValues(branch, root, depth + 1));
    }
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) {
    return boundaryValues({ ...(node.allOf[0] as Schema) }, root, depth + 1);
  }
  return schemaTypes(node).flatMap((type): unknown[] => {
    switch (type) {
      case 'object':
        return objectEnds(node, root, depth);
      case 'string':
        return stringEnds(node);
      case 'integer':
        return numberEnds(node, true);
      case 'number':
        return numberEnds(node, false);
      case 'boolean':
        return [false, true];
      case 'array':
        return arrayEnds(node, root, depth);
      case 'null':
        return [null];
      default:
        return [];
    }
  });
}

/**
 * A tool's boundary params: `boundaryValues` of its parameters schema without repeats, at most
 * `MAX_BOUNDARY_VALUES`, in order (optional fields absent first, then all present, then each
 * field's edges in property order).
 */
export function boundaryParams(schema: Schema): unknown[] {
  const seen = new Set<string>();
  const values: unknown[] = [];
  for (const value of boundaryValues(schema)) {
    const key = JSON.stringify(value);
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    values.push(value);
    if (values.length >= MAX_BOUNDARY_VALUES) break;
  }
  return values;
}
