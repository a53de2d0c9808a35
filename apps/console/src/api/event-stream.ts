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
 * stream through `fetch`.
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
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let overflow: StreamOverflow | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return overflow;
      buffered += value;
      // Blocks end with a blank line; a partial block waits for the next chunk.
      for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = parseBlock(block);
        // The daemon's last word on this stream: it ends right after it.
        if (event?.type === 'overflow') overflow = event.data as StreamOverflow;
        else if (event !== undefined) onEvent(event);
      }
    }
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  } finally {
    reader.releaseLock();
  }
}

function parseBlock(block: string): StreamEvent | undefined {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  try {
    return { type, data: JSON.parse(data.join('\n')) };
  } catch {
    return undefined;
  }
}
