/** A JSON Schema node, read loosely: the generators look only at the keywords they know. */
export type Schema = Record<string, unknown>;

/**
 * `schema` itself, or the node its local `$ref` (`#/...`) points at inside `root`; an empty schema
 * (anything goes) when the pointer leads nowhere. Remote refs are left as they are.
 */
export function resolveRef(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let target: unknown = root;
  for (const segment of ref.slice(2).split('/')) target = (target as Schema | undefined)?.[segment];
  return typeof target === 'object' && target !== null ? (target as Schema) : {};
}

/** The limits the random and the boundary generators share, so that their edges agree. */
export const GENERATOR_LIMITS = Object.freeze({
  /** Longest string made where the schema sets no `maxLength`: long enough to overflow a label. */
  longString: 2000,
  /** Most array items made where the schema sets no smaller `maxItems`. */
  maxItems: 4,
  /** How deep the generators follow nested schemas before they stop. */
  maxDepth: 8,
});

/** The JSON types a node allows: its `type` (one or a list), else `object` where it has `properties`. */
export function schemaTypes(node: Schema): string[] {
  if (typeof node.type === 'string') return [node.type];
  if (Array.isArray(node.type))
    return node.type.filter((entry): entry is string => typeof entry === 'string');
  if (node.properties !== undefined) return ['object'];
  return [];
}

/** A count keyword's value (`minLength`, `maxItems`, ...) where it is a safe integer ≥ 0, else undefined. */
export function schemaCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/**
 * The fewest and the most items the generators make for an array node: its `minItems` (else 0), and
 * its `maxItems` capped at `GENERATOR_LIMITS.maxItems` (never below the fewest); with its items' schema
 * (an empty one where it sets none).
 */
export function arrayBounds(node: Schema): { minItems: number; maxItems: number; items: Schema } {
  const minItems = schemaCount(node.minItems) ?? 0;
  const cap = GENERATOR_LIMITS.maxItems;
  const maxItems = Math.max(minItems, Math.min(schemaCount(node.maxItems) ?? cap, cap));
  const items = (typeof node.items === 'object' && node.items !== null ? node.items : {}) as Schema;
  return { minItems, maxItems, items };
}
