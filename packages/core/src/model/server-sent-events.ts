import { createParser } from 'eventsource-parser';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ModelRequestError } from '../errors/model-request-error';

function responseTooLarge(maxBytes: number): ModelRequestError {
  return new ModelRequestError({
    message: `Model response too large: its body passed ${maxBytes} bytes (maxResponseBytes), so it was not read further`,
  });
}

/**
 * Reads a whole body as UTF-8 text, at most `maxBytes` of it.
 *
 * Contract: rejects with `ModelRequestError` naming the limit as soon as the body passes it (the
 * body is cancelled), or with the body's own error; an absent body reads as `''`.
 */
export async function readBoundedText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<string> {
  if (body === null) return '';
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw responseTooLarge(maxBytes);
    parts.push(decoder.decode(chunk, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/**
 * Reads a Responses stream's server-sent events and hands each one, parsed, to `onEvent`, until
 * the body ends. It reads what `Stream` of the `openai` SDK reads (`[DONE]` and anything after it
 * is skipped, a message with an `error` member fails the stream) at a fraction of its cost: the SDK
 * scans every byte of the body twice in JavaScript and copies the rest of its buffer after every
 * event, and the Responses API repeats the request's tools in `response.created` and
 * `response.completed`, so a turn with 50 tools sends megabytes through it. Here the bytes are
 * decoded once and split with `indexOf` (`eventsource-parser`).
 *
 * Contract: rejects with the body's error (an abort, a broken connection), with `SyntaxError` for
 * a message that is not JSON, with an error naming the limit when one event grows past
 * `maxEventCharacters` (64 Mi by default: a server that never ends its event cannot fill the
 * memory), or with what `onEvent` throws; on any of them the body is cancelled. An event cut off
 * by the end of the body is dropped, as the SSE standard says. Unknown fields are ignored. A
 * message whose `event:` field `skipEvent` is true for is dropped unparsed: the Responses API
 * repeats the whole response, tools included, in `response.created` and `response.in_progress`,
 * and a reader that has no use for them need not parse them (nor see an `error` member in them).
 * A body longer than `maxBytes` (unlimited by default) rejects with `ModelRequestError` naming the
 * limit as soon as it passes it: each event may be small and the stream never end.
 */
export async function readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: ResponseStreamEvent) => void,
  {
    maxEventCharacters = 64 * 1024 * 1024,
    maxBytes = Number.POSITIVE_INFINITY,
    skipEvent,
  }: { maxEventCharacters?: number; maxBytes?: number; skipEvent?: (name: string) => boolean } = {},
): Promise<void> {
  const messages: string[] = [];
  let overflow: Error | undefined;
  const parser = createParser({
    onEvent: (message) => {
      if (message.event !== undefined && skipEvent?.(message.event) === true) return;
      messages.push(message.data);
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') {
        overflow = new Error(`an event of the stream grew past ${maxEventCharacters} characters`);
      }
    },
    maxBufferSize: maxEventCharacters,
  });
  const decoder = new TextDecoder();
  let done = false;
  const dispatch = () => {
    if (overflow !== undefined) throw overflow;
    for (const data of messages) {
      // As the SDK's reader: nothing after `[DONE]` is read.
      if (done || data.startsWith('[DONE]')) {
        done = true;
        continue;
      }
      const event = JSON.parse(data) as ResponseStreamEvent & { error?: unknown };
      if (event !== null && typeof event === 'object' && event.error) {
        throw new Error(`the server sent an error: ${describeStreamError(event.error)}`);
      }
      onEvent(event);
    }
    messages.length = 0;
  };
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw responseTooLarge(maxBytes);
    parser.feed(decoder.decode(chunk, { stream: true }));
    dispatch();
  }
  parser.feed(decoder.decode());
  dispatch();
}

function describeStreamError(error: unknown): string {
  if (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string'
  ) {
    return (error as { message: string }).message;
  }
  return JSON.stringify(error);
}
