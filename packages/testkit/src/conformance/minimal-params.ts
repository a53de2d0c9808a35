import { resolveRef, type Schema } from './json-schema-node';

function firstType(type: unknown): string | undefined {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((entry) => entry !== 'null') ?? type[0];
  return undefined;
}

/**
 * The smallest value a JSON Schema plausibly accepts: required properties only, the first enum
 * value or union branch, minimum lengths and bounds. Used to exercise a tool without hand-written
 * samples; a value the tool's Zod schema then rejects is simply not used.
 */
export function minimalParams(schema: Schema, root: Schema = schema, depth = 0): unknown {
  const node = resolveRef(schema, root);
  if (depth > 12) return undefined;
  if ('default' in node) return node.default;
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum)) return node.enum.find((value) => value !== null) ?? node.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches)) {
      const branch =
        (branches as Schema[]).find((entry) => resolveRef(entry, root).type !== 'null') ?? branches[0];
      return minimalParams(branch as Schema, root, depth + 1);
    }
  }
  switch (firstType(node.type) ?? (node.properties ? 'object' : undefined)) {
    case 'object': {
      const properties = (node.properties ?? {}) as Record<string, Schema>;
      const required = Array.isArray(node.required) ? (node.required as string[]) : [];
      const value: Record<string, unknown> = {};
      for (const name of required) {
        const property = properties[name];
        if (property !== undefined) value[name] = minimalParams(property, root, depth + 1);
      }
      return value;
    }
    case 'string': {
      if (node.format === 'uri' || node.format === 'url') return 'https://example.com/';
      if (node.format === 'email') return 'someone@example.com';
      if (node.format === 'date-time') return '2026-01-01T00:00:00Z';
      const minLength = typeof node.minLength === 'number' ? node.minLength : 0;
      return 'sample'.padEnd(minLength, 'x');
    }
    case 'integer':
    case 'number': {
      if (typeof node.minimum === 'number') return node.minimum;
      if (typeof node.exclusiveMinimum === 'number') return node.exclusiveMinimum + 1;
      return typeof node.maximum === 'number' && node.maximum < 1 ? node.maximum : 1;
    }
    case 'boolean':
      return false;
    case 'array': {
      const minItems = typeof node.minItems === 'number' ? node.minItems : 0;
      const items = (node.items ?? {}) as Schema;
      return Array.from({ length: minItems }, () => minimalParams(items, root, depth + 1));
    }
    case 'null':
      return null;
    default:
      return {};
  }
}
