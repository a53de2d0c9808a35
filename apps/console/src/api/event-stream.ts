import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { ApiError, authHeaders, type Schema } from './client';

/** One server-sent event: its `event:` type and its parsed `data:` JSON. */
export interface StreamEvent {
  type: string;
  data: unknown;
}

/** The daemon's `overflow` event: it ended the stream because this page fell too far behind. */
export type StreamOverflow = Schema<'StreamOverflowEvent'>;

/**
 * Reads the daemon's server-sent events at `path` and calls `onEvent` for each, until the stream
 * ends or `signal` aborts. `EventSource` cannot send the bearer token in a header, so this reads the
 * stream through `fetch`, and parses it with `eventsource-parser`'s stream (the parser core reads the
 * model's stream with).
 *
 * Contract: resolves when the server ends the stream or `signal` aborts, with the daemon's `overflow`
 * event when that is how it ended the stream (the reader fell behind and missed what came after; it
 * is not passed to `onEvent`); rejects with `ApiError` when the daemon refuses the request, and with
 * the network error when the connection breaks. `onOpen` is called once the daemon has accepted the
 * stream, before its first event.
 */
export async function readEventStream(
  path: string,
  onEvent: (event: StreamEvent) => void,
  signal: AbortSignal,
  onOpen?: () => void,
): Promise<StreamOverflow | undefined> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { accept: 'text/event-stream', ...authHeaders() }, signal });
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
  if (!response.ok || response.body === null) {
    const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    throw new ApiError(
      response.status,
      body.error?.code ?? 'http_error',
      body.error?.message ?? `the daemon answered ${response.status}`,
    );
  }
  onOpen?.();
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  let overflow: StreamOverflow | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return overflow;
      const event = parseMessage(value);
      // The daemon's last word on this stream: it ends right after it.
      if (event?.type === 'overflow') overflow = event.data as StreamOverflow;
      else if (event !== undefined) onEvent(event);
    }
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  } finally {
    reader.releaseLock();
  }
}

/** An event with its data parsed; a message whose data is not JSON is skipped, as before. */
function parseMessage(message: EventSourceMessage): StreamEvent | undefined {
  try {
    return { type: message.event ?? 'message', data: JSON.parse(message.data) };
  } catch {
    return undefined;
  }
}
