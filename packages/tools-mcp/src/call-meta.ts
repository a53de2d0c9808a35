/**
 * The caller's `_meta` entries for one call (`McpToolsContext.callMeta`, e.g. a W3C `traceparent`):
 * string values only, `progressToken` left out (the SDK sets it for progress reports); undefined when
 * there are none or the function throws.
 *
 * Contract: never throws.
 */
export function callMetaFrom(
  callMeta: (() => Record<string, string> | undefined) | undefined,
): Record<string, string> | undefined {
  if (callMeta === undefined) return undefined;
  let given: unknown;
  try {
    given = callMeta();
  } catch {
    return undefined;
  }
  if (typeof given !== 'object' || given === null) return undefined;
  const meta: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) {
    if (typeof value === 'string' && key !== 'progressToken') meta[key] = value;
  }
  return Object.keys(meta).length === 0 ? undefined : meta;
}
