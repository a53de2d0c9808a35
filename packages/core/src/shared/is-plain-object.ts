/**
 * True for a non-null, non-array object: a JSON object as parsed, or a JSON Schema node.
 * The one definition shared by core, the control plane and the categories, so that "object" means
 * the same thing wherever a value or a schema is walked.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
