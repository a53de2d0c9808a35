import { z } from 'zod';
import type { JSONSchemaObject } from '../tool/worker-agent-tool';

let conversions = 0;

/**
 * Converts a tool's Zod schema to the JSON Schema the model sees, describing the tool's *input*
 * (fields with defaults are optional). The `$schema` annotation is dropped: it costs bytes on
 * every request and tells the model nothing.
 *
 * Contract: throws `'function tool parameters must use a root object schema'` when the root is
 * not an object; lets zod's error through for types JSON Schema cannot express (dates, bigints, ...).
 *
 * @example
 * zodToJSONSchema(z.object({ path: z.string() }))
 * // { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false }
 */
export function zodToJSONSchema(schema: z.ZodType): JSONSchemaObject {
  conversions += 1;
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input' }) as JSONSchemaObject;
  if (jsonSchema.type !== 'object') {
    throw new Error('function tool parameters must use a root object schema');
  }
  return jsonSchema;
}

/** Internal: how many Zod-to-JSON-Schema conversions ran in this process (tests assert the cache). */
export function zodConversionCount(): number {
  return conversions;
}
