import { schemaAcceptsNull } from '../schema/strict-json-schema';
import { isPlainObject } from '../shared/is-plain-object';
import type { JSONSchemaObject } from '../tool/worker-agent-tool';
import { unescapePointerSegment } from './json-pointer';

/** Maps the nulls of formerly optional properties in a value back to absent. */
export type NullRestorer = (value: unknown) => unknown;

const identity: NullRestorer = (value) => value;

/** The node a local `$ref` (`#`, `#/$defs/name`) points at in `root`; undefined for any other ref. */
export function resolveRef(ref: string, root: JSONSchemaObject): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    if (!isPlainObject(node)) return undefined;
    node = node[unescapePointerSegment(raw)];
  }
  return node;
}

function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

interface PropertyPlan {
  dropNull: boolean;
  child: NullRestorer;
}

function compileObject(schema: JSONSchemaObject, compile: (node: unknown) => NullRestorer): NullRestorer {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const objectBranches = branches.filter(
      (branch) =>
        isPlainObject(branch) && (branch.type === 'object' || 'properties' in branch || '$ref' in branch),
    );
    // Only an unambiguous object branch tells which properties were optional.
    return objectBranches.length === 1 ? compile(objectBranches[0]) : identity;
  }
  if (!isPlainObject(schema.properties)) return identity;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const plans = new Map<string, PropertyPlan>();
  for (const [key, property] of Object.entries(schema.properties)) {
    plans.set(key, {
      dropNull: !required.has(key) && !schemaAcceptsNull(property),
      child: compile(property),
    });
  }
  return (value) => {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    // Copy on first change only: most values come back with nothing to drop below the root.
    let result: Record<string, unknown> | undefined;
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      const item = object[key];
      const plan = plans.get(key);
      let restored = item;
      if (plan !== undefined) {
        if (item === null && plan.dropNull) {
          if (result === undefined) result = copyKeys(object, keys, index);
          continue;
        }
        if (typeof item === 'object' && item !== null) restored = plan.child(item);
      }
      if (result === undefined && restored !== item) result = copyKeys(object, keys, index);
      if (result !== undefined) setMember(result, key, restored);
    }
    return result ?? object;
  };
}

function copyKeys(object: Record<string, unknown>, keys: string[], end: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (let index = 0; index < end; index += 1) {
    const key = keys[index] as string;
    setMember(copy, key, object[key]);
  }
  return copy;
}

/**
 * Compiles `restoreOptionalNulls` for one original (pre-strict) JSON Schema into a function, so
 * the per-call work is a walk of the value with no schema lookups; the input is returned as it is
 * when nothing changes.
 *
 * Contract: never mutates its input; recursive `$ref`s are compiled once.
 */
export function compileNullRestorer(schema: JSONSchemaObject): NullRestorer {
  const compiled = new Map<object, NullRestorer>();
  const compile = (node: unknown): NullRestorer => {
    if (!isPlainObject(node)) return identity;
    const known = compiled.get(node);
    if (known !== undefined) return known;
    let implementation: NullRestorer = identity;
    // Registered before compiling so that a recursive `$ref` finds it.
    const restorer: NullRestorer = (value) => implementation(value);
    compiled.set(node, restorer);
    if (typeof node.$ref === 'string') {
      implementation = compile(resolveRef(node.$ref, schema));
      return restorer;
    }
    const items = 'items' in node ? compile(node.items) : undefined;
    const objects = compileObject(node, compile);
    implementation = (value) => {
      if (Array.isArray(value)) {
        if (items === undefined) return value;
        let changed = false;
        const mapped = value.map((item) => {
          const restored = items(item);
          if (restored !== item) changed = true;
          return restored;
        });
        return changed ? mapped : value;
      }
      return isPlainObject(value) ? objects(value) : value;
    };
    return restorer;
  };
  return compile(schema);
}

/**
 * Maps the `null` of a formerly optional property back to "absent", guided by the original
 * (pre-strict) JSON Schema: a `null` stays only where the original schema accepts `null`.
 * One-off form of `compileNullRestorer` (validation compiles once per tool and reuses it).
 *
 * Contract: never mutates `value`; returns it as it is when no `null` is dropped.
 */
export function restoreOptionalNulls<T>(value: T, originalSchema: JSONSchemaObject): T {
  return compileNullRestorer(originalSchema)(value) as T;
}
