// An HTTP token (RFC 9110): one character class, linear.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** Headers the fetch sets itself, or that only the HTTP client may set. */
const OWN_HEADERS = new Set(['user-agent', 'accept', 'host', 'content-length', 'transfer-encoding']);
/** The longest header value taken. */
const MAX_VALUE_LENGTH = 8192;

/**
 * The caller's extra headers for one call (`WebFetchOptions.requestHeaders`), each checked: names
 * must be HTTP tokens other than the fetch's own, values single-line strings of at most 8 KiB; a
 * header that breaks these rules is left out, and so is everything when the function throws.
 *
 * Contract: never throws.
 */
export function extraHeaders(
  requestHeaders: (() => Record<string, string> | undefined) | undefined,
): Record<string, string> {
  if (requestHeaders === undefined) return {};
  let given: unknown;
  try {
    given = requestHeaders();
  } catch {
    return {};
  }
  if (typeof given !== 'object' || given === null) return {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!HEADER_NAME.test(name) || OWN_HEADERS.has(name.toLowerCase())) continue;
    if (typeof value !== 'string' || value.length > MAX_VALUE_LENGTH || /[\r\n\0]/.test(value)) continue;
    headers[name.toLowerCase()] = value;
  }
  return headers;
}
