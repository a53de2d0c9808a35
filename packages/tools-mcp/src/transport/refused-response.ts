import { type JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpLimitError } from '../errors/mcp-limit-error';

/**
 * The JSON-RPC error code of the answer a transport makes up for a request whose real answer it
 * refused (in the range JSON-RPC leaves to implementations).
 */
export const REFUSED_RESPONSE_CODE = -32_070;

// A request id at the start (`{"jsonrpc":"2.0","id":7,...` or `{"id":7,...`) or as the last member
// (`...,"jsonrpc":"2.0","id":7}`, how the SDK's servers write it) of a message. Both are anchored
// and run over at most a few hundred characters: linear, and an `id` nested deeper never matches.
const ID_VALUE = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,128}")`;
const LEADING_ID = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*,`,
);
const TRAILING_ID = new RegExp(String.raw`,\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/**
 * The request id of a message of which only the two ends are known, when either end shows it as a
 * member of the top-level object; `undefined` otherwise.
 */
export function refusedMessageId(head: string, tail: string): string | number | undefined {
  const match = LEADING_ID.exec(head) ?? TRAILING_ID.exec(tail);
  if (match === null) return undefined;
  try {
    const id: unknown = JSON.parse(match[1] as string);
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The answer that stands in for a refused one: the request fails at once with the limit's message,
 * instead of waiting for an answer that will never be read.
 */
export function refusedResponse(id: string | number, error: McpLimitError): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: REFUSED_RESPONSE_CODE, message: error.message, data: { limit: error.limit } },
  };
}

/**
 * The `McpLimitError` behind a failed request: the error itself (a response body refused while the
 * request was sent) or the made-up answer of `refusedResponse`; `undefined` for any other error.
 */
export function limitErrorOf(error: unknown, server: string): McpLimitError | undefined {
  if (McpLimitError.isInstance(error)) return error;
  if (!(error instanceof McpError) || error.code !== REFUSED_RESPONSE_CODE) return undefined;
  const limit = (error.data as { limit?: unknown } | undefined)?.limit;
  if (limit !== 'maxMessageBytes' && limit !== 'maxMessageDepth') return undefined;
  const message = error.message.replace(`MCP error ${REFUSED_RESPONSE_CODE}: `, '');
  return new McpLimitError({ server, limit, message });
}
