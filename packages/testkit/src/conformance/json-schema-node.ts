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

/**
 * Longest string the generators make where the schema sets no `maxLength`: long enough to overflow
 * a label, and the same for the random and the boundary generator so their edges agree.
 */
export const LONG_STRING = 2000;
/** Most array items the generators make where the schema sets no smaller `maxItems`. */
export const MAX_ITEMS = 4;
/** How deep the generators follow nested schemas before they stop. */
export const MAX_DEPTH = 8;

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
