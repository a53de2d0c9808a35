import type { z } from 'zod';
import type { JSONSchemaObject } from '../tool/worker-agent-tool';
import { type StrictJSONSchemaResult, toStrictJSONSchema } from './strict-json-schema';
import { zodToJSONSchema } from './zod-to-json-schema';

/** The parameter schema a tool sends, and how it got there. */
export interface ToolParameters {
  /** The schema before strict projection: the Zod conversion, or the external `jsonSchema` itself. */
  readonly original: JSONSchemaObject;
  /** What is sent as the function tool's `parameters`. */
  readonly parameters: JSONSchemaObject;
  /** Whether the function tool is sent with `strict: true`. */
  readonly strict: boolean;
  /** Why a tool that did not opt out of strict mode is sent non-strict. */
  readonly fallbackReason?: string;
  /**
   * Constraints strict mode does not take, moved into descriptions by the projection
   * (`minLength at /properties/q`); empty when none was. Validation still enforces them.
   */
  readonly movedKeywords: readonly string[];
  /** The schema is the tool's external `jsonSchema`: sent unchanged, or projected with `strict: 'auto'`. */
  readonly external: boolean;
  /** Strict projection turned optional properties into nullable ones: map nulls back before validation. */
  readonly restoresOptionalNulls: boolean;
}

interface ZodConversion {
  original: JSONSchemaObject;
  strict: StrictJSONSchemaResult;
}

// Keyed on the Zod schema object: creators that rebuild tools every turn usually share module-level
// schemas, so a new tool object with a known schema costs no conversion. Zod 4 schema objects are
// immutable through their API (`.describe()`, `.meta()`, `.optional()`, `.min()` ... each return a
// new object), with one exception this cache cannot see: metadata registered later on the very same
// object (`schema.register(z.globalRegistry, meta)` or `z.globalRegistry.add`) changes what
// `z.toJSONSchema` returns for it (checked with zod 4.6.7). Register metadata before a tool is
// defined with the schema, or use `.meta()`, which returns a new object. A schema created anew each
// turn is a new key, so it is always converted afresh.
const zodConversions = new WeakMap<z.ZodType, ZodConversion>();

function convertZod(schema: z.ZodType): ZodConversion {
  let conversion = zodConversions.get(schema);
  if (!conversion) {
    const original = zodToJSONSchema(schema);
    conversion = { original, strict: toStrictJSONSchema(original) };
    zodConversions.set(schema, conversion);
  }
  return conversion;
}

function isAlreadyStrict(schema: JSONSchemaObject, projected: JSONSchemaObject): boolean {
  return JSON.stringify(schema) === JSON.stringify(projected);
}

/** The stated reason of an external schema sent as it is, without strict mode asked for. */
export const EXTERNAL_SCHEMA_REASON = 'external schema sent unchanged';

const externalProjections = new WeakMap<JSONSchemaObject, StrictJSONSchemaResult>();

function projectExternal(schema: JSONSchemaObject): StrictJSONSchemaResult {
  let projection = externalProjections.get(schema);
  if (!projection) {
    projection = toStrictJSONSchema(schema);
    externalProjections.set(schema, projection);
  }
  return projection;
}

/**
 * Works out the parameters a tool sends. Zod schemas are converted once per schema object and
 * projected to strict mode unless the tool opts out (`strict: false`); an external `jsonSchema` is
 * sent as the very same object (byte-for-byte unchanged, with the reason `external schema sent
 * unchanged` unless the tool said `strict: false`), strict only when the tool asks for it
 * (`true`: it must already be strict) or projected when the tool says `strict: 'auto'` (once per
 * schema object).
 *
 * Contract: throws (zod's error, or the root-object error) when the Zod schema cannot be
 * converted; `defineWorkerTool` turns that into a `ToolDefinitionError` at definition time.
 */
export function resolveToolParameters(
  tool: (
    | { readonly schema: z.ZodType; readonly jsonSchema?: undefined }
    | { readonly schema?: undefined; readonly jsonSchema: JSONSchemaObject }
  ) & { readonly strict?: boolean | 'auto' },
): ToolParameters {
  if (tool.jsonSchema !== undefined) {
    if (tool.strict === 'auto') {
      const projection = projectExternal(tool.jsonSchema);
      if (projection.ok) {
        return {
          original: tool.jsonSchema,
          parameters: projection.schema,
          strict: true,
          movedKeywords: projection.movedKeywords,
          external: true,
          restoresOptionalNulls: true,
        };
      }
      return {
        original: tool.jsonSchema,
        parameters: tool.jsonSchema,
        strict: false,
        fallbackReason: `${EXTERNAL_SCHEMA_REASON}: ${projection.reason}`,
        movedKeywords: [],
        external: true,
        restoresOptionalNulls: false,
      };
    }
    const strict = tool.strict === true;
    // Unset asks for nothing: the schema goes out as the server wrote it, and the manifest says so.
    let fallbackReason: string | undefined = tool.strict === false ? undefined : EXTERNAL_SCHEMA_REASON;
    if (strict) {
      fallbackReason = undefined;
      const projection = toStrictJSONSchema(tool.jsonSchema);
      if (!projection.ok) fallbackReason = projection.reason;
      else if (!isAlreadyStrict(tool.jsonSchema, projection.schema)) {
        fallbackReason =
          'an external jsonSchema is sent unchanged, so strict mode needs it already strict (every property required, additionalProperties: false)';
      }
    }
    return {
      original: tool.jsonSchema,
      parameters: tool.jsonSchema,
      strict: strict && fallbackReason === undefined,
      ...(fallbackReason === undefined ? {} : { fallbackReason }),
      movedKeywords: [],
      external: true,
      restoresOptionalNulls: false,
    };
  }
  const conversion = convertZod(tool.schema);
  if (tool.strict === false) {
    return {
      original: conversion.original,
      parameters: conversion.original,
      strict: false,
      movedKeywords: [],
      external: false,
      restoresOptionalNulls: false,
    };
  }
  if (!conversion.strict.ok) {
    return {
      original: conversion.original,
      parameters: conversion.original,
      strict: false,
      fallbackReason: conversion.strict.reason,
      movedKeywords: [],
      external: false,
      restoresOptionalNulls: false,
    };
  }
  return {
    original: conversion.original,
    parameters: conversion.strict.schema,
    strict: true,
    movedKeywords: conversion.strict.movedKeywords,
    external: false,
    restoresOptionalNulls: true,
  };
}
