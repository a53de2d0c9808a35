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
