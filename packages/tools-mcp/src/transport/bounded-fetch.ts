import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpLimitError } from '../errors/mcp-limit-error';
import { ServerSentEventSizer } from './server-sent-event-sizer';

/** What `createBoundedFetch` needs. */
export interface BoundedFetchOptions {
  /** The configured server name, for messages. */
  server: string;
  /** Most bytes of one response body that is not an event stream, and of one server-sent event. */
  maxMessageBytes: number;
  /**
   * Told when a response to requests with these ids was cut off at the limit: the transport answers
   * them at once (a JSON body's refusal already fails the request that is reading it).
   */
  onRefused(ids: readonly (string | number)[], error: McpLimitError): void;
  /** The fetch underneath. Default: the global `fetch`. */
  fetch?: FetchLike;
}

// Responses that must not have a body; `new Response` refuses one for them.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The ids of the requests in a JSON-RPC body this client sent (one message or a batch). */
function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.flatMap((message) => {
      const id = (message as { id?: unknown; method?: unknown } | null)?.id;
      return typeof (message as { method?: unknown } | null)?.method === 'string' &&
        (typeof id === 'string' || typeof id === 'number')
        ? [id]
        : [];
    });
  } catch {
    return [];
  }
}

/**
 * A fetch for the SDK's streamable HTTP transport that bounds what it reads as the bytes arrive:
 * each server-sent event of an event stream, and the whole of any other body, at `maxMessageBytes`
 * (the SDK would hold an event without end, or a body of any size, whole). Past the limit the body
 * fails with an `McpLimitError` naming the server and the limit; the requests whose answer it carried
 * are reported to `onRefused`. After the standing event stream (the GET) was refused once, the server
 * is taken to offer none (a 405), so the SDK does not open it again and again.
 */
export function createBoundedFetch(options: BoundedFetchOptions): FetchLike {
  const { server, maxMessageBytes } = options;
  const underlying = options.fetch ?? fetch;
  let standingStreamRefused = false;
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'GET' && standingStreamRefused) {
      return new Response(null, { status: 405, statusText: 'event stream refused earlier' });
    }
    const response = await underlying(url, init);
    const { body } = response;
    if (body === null || NULL_BODY_STATUSES.has(response.status)) return response;
    const isEventStream = (response.headers.get('content-type') ?? '')
      .toLowerCase()
      .includes('text/event-stream');
    const ids = requestIds(init?.body);
    const refuse = (what: string): McpLimitError => {
      const error = new McpLimitError({
        server,
        limit: 'maxMessageBytes',
        message: `MCP server '${server}' sent ${what}, over its maxMessageBytes of ${maxMessageBytes}; it was not read`,
      });
      if (method === 'GET') standingStreamRefused = true;
      if (isEventStream && ids.length > 0) options.onRefused(ids, error);
      return error;
    };
    const sizer = isEventStream ? new ServerSentEventSizer() : undefined;
    let total = 0;
    const bounded = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (sizer !== undefined) {
            const largest = sizer.push(chunk);
            if (largest > maxMessageBytes) {
              controller.error(refuse(`a server-sent event of more than ${largest} bytes`));
              return;
            }
          } else {
            total += chunk.byteLength;
            if (total > maxMessageBytes) {
              controller.error(refuse(`a response body of more than ${total} bytes`));
              return;
            }
          }
          controller.enqueue(chunk);
        },
      }),
    );
    // Cancelling the bounded body (the SDK does on errors) must also release the connection.
    return new Response(bounded, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
