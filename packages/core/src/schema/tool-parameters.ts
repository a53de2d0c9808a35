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
  /** The parameters are the tool's external `jsonSchema`, sent unchanged. */
  readonly external: boolean;
  /** Strict projection turned optional properties into nullable ones: map nulls back before validation. */
  readonly restoresOptionalNulls: boolean;
}

interface ZodConversion {
  original: JSONSchemaObject;
  strict: StrictJSONSchemaResult;
}

// Keyed on the Zod schema object: creators that rebuild tools every turn usually share module-level
// schemas, so a new tool object with a known schema costs no conversion.
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

/**
 * Works out the parameters a tool sends. Zod schemas are converted once per schema object and
 * projected to strict mode unless the tool opts out (`strict: false`); an external `jsonSchema` is
 * sent as the very same object (byte-for-byte unchanged), strict only when the tool asks for it.
 *
 * Contract: throws (zod's error, or the root-object error) when the Zod schema cannot be
 * converted; `defineWorkerTool` turns that into a `ToolDefinitionError` at definition time.
 */
export function resolveToolParameters(tool: {
  readonly schema: z.ZodType;
  readonly jsonSchema?: JSONSchemaObject;
  readonly strict?: boolean;
}): ToolParameters {
  if (tool.jsonSchema !== undefined) {
    const strict = tool.strict === true;
    let fallbackReason: string | undefined;
    if (strict) {
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
      external: false,
      restoresOptionalNulls: false,
    };
  }
  return {
    original: conversion.original,
    parameters: conversion.strict.schema,
    strict: true,
    external: false,
    restoresOptionalNulls: true,
  };
}
