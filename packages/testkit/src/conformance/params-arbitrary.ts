import fc from 'fast-check';
import {
  arrayBounds,
  GENERATOR_LIMITS,
  resolveRef,
  type Schema,
  schemaCount,
  schemaTypes,
} from './json-schema-node';

function stringArbitrary(node: Schema): fc.Arbitrary<string> {
  if (typeof node.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(node.pattern, 'u'), { size: 'small' });
    } catch {
      return fc.constant('sample');
    }
  }
  switch (node.format) {
    case 'uri':
    case 'url':
      return fc.constantFrom(
        'https://example.com/',
        'https://example.com/a/b?q=%C3%A9#x',
        'http://example.org',
      );
    case 'email':
      return fc.constantFrom('someone@example.com', 'a.b+c@example.org');
    case 'date-time':
      return fc
        .date({
          min: new Date('1970-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((date) => date.toISOString());
    case 'date':
      return fc
        .date({
          min: new Date('1970-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((date) => date.toISOString().slice(0, 10));
  }
  const minLength = schemaCount(node.minLength) ?? 0;
  const maxLength = schemaCount(node.maxLength) ?? GENERATOR_LIMITS.longString;
  const fit = (value: string) => value.length >= minLength && value.length <= maxLength;
  const edges = [
    '',
    ' ',
    'x'.repeat(Math.min(maxLength, GENERATOR_LIMITS.longString)),
    'x'.repeat(minLength),
  ].filter(fit);
  return fc.oneof(
    fc.string({ minLength, maxLength: Math.min(maxLength, 40) }),
    // Unicode: combining marks, emoji, right-to-left text, line breaks and NUL-free control characters.
    fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 40) }),
    fc.constantFrom('é', '😀 family 👨‍👩‍👧', 'שלום', 'line\nbreak\ttab', '../..', '%s %d {}').filter(fit),
    ...(edges.length === 0 ? [] : [fc.constantFrom(...edges)]),
  );
}

function numberArbitrary(node: Schema, integer: boolean): fc.Arbitrary<number> {
  const lower =
    typeof node.minimum === 'number'
      ? node.minimum
      : typeof node.exclusiveMinimum === 'number'
        ? node.exclusiveMinimum +
          (integer ? 1 : Number.EPSILON * Math.max(1, Math.abs(node.exclusiveMinimum)))
        : undefined;
  const upper =
    typeof node.maximum === 'number'
      ? node.maximum
      : typeof node.exclusiveMaximum === 'number'
        ? node.exclusiveMaximum -
          (integer ? 1 : Number.EPSILON * Math.max(1, Math.abs(node.exclusiveMaximum)))
        : undefined;
  const min = lower ?? (integer ? Number.MIN_SAFE_INTEGER : -1e12);
  const max = upper ?? (integer ? Number.MAX_SAFE_INTEGER : 1e12);
  const edges = [min, max, 0, 1, -1].filter((value) => value >= min && value <= max);
  const random = integer
    ? fc.integer({
        min: Math.ceil(Math.max(min, Number.MIN_SAFE_INTEGER)),
        max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)),
      })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof(random, fc.constantFrom(...(edges.length > 0 ? edges : [min])));
}

/**
 * A fast-check arbitrary of values for a JSON Schema, leaning on the edges: empty and long strings,
 * unicode, bounds and zero, optional properties both absent and present, every enum value, arrays of
 * none to a few items, each union branch. Values are plausible, not guaranteed valid: callers keep
 * those the tool's own schema accepts.
 */
export function paramsArbitrary(schema: Schema, root: Schema = schema, depth = 0): fc.Arbitrary<unknown> {
  const node = resolveRef(schema, root);
  if (depth > GENERATOR_LIMITS.maxDepth) return fc.constant(undefined);
  if ('const' in node) return fc.constant(node.const);
  if (Array.isArray(node.enum) && node.enum.length > 0) return fc.constantFrom(...node.enum);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.length > 0) {
      return fc.oneof(...(branches as Schema[]).map((branch) => paramsArbitrary(branch, root, depth + 1)));
    }
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) {
    return paramsArbitrary({ ...(node.allOf[0] as Schema) }, root, depth + 1);
  }
  const options = schemaTypes(node).map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'object': {
        const properties = (node.properties ?? {}) as Record<string, Schema>;
        const required = Array.isArray(node.required) ? (node.required as string[]) : [];
        const model: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [name, property] of Object.entries(properties)) {
          model[name] = paramsArbitrary(property, root, depth + 1);
        }
        return fc.record(model, { requiredKeys: required.filter((name) => name in properties) });
      }
      case 'string':
        return stringArbitrary(node);
      case 'integer':
        return numberArbitrary(node, true);
      case 'number':
        return numberArbitrary(node, false);
      case 'boolean':
        return fc.boolean();
      case 'array': {
        const { minItems, maxItems, items } = arrayBounds(node);
        return fc.array(paramsArbitrary(items, root, depth + 1), {
          minLength: minItems,
          maxLength: maxItems,
        });
      }
      case 'null':
        return fc.constant(null);
      default:
        return fc.constant({});
    }
  });
  if (options.length === 0)
    return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
  return options.length === 1 ? (options[0] as fc.Arbitrary<unknown>) : fc.oneof(...options);
}
