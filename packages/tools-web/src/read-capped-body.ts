/** A response body read up to a byte cap. */
export interface CappedBody {
  /** The bytes read: the whole body, or its first `maxBytes` bytes when it went over the cap. */
  data: Uint8Array;
  /** How many bytes `data` holds. */
  bytes: number;
  /** False when the body was longer than the cap and the rest was cancelled unread. */
  complete: boolean;
}

/** The chunks as one array: in memory a worker thread can share (no copy on `postMessage`), or a Buffer. */
function join(chunks: readonly Uint8Array[], bytes: number, shared: boolean): Uint8Array {
  if (!shared) return Buffer.concat(chunks, bytes);
  const data = new Uint8Array(new SharedArrayBuffer(bytes));
  let offset = 0;
  for (const chunk of chunks) {
    data.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return data;
}

/**
 * Reads a response body (counted after decompression, so a gzip bomb stops at the cap) up to
 * `maxBytes` bytes and cancels the rest. Shared by `web_fetch` and the search adapters. With
 * `shared`, the bytes are in a `SharedArrayBuffer`: `web_fetch` hands them to a render thread
 * (twice, when the conversion falls back) without copying megabytes on the event loop.
 *
 * Contract: never throws for size (check `complete`); rejects when the stream fails (abort,
 * timeout, a reset connection), so the caller classifies that as it classifies the request.
 */
export async function readCappedBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  options: { shared?: boolean } = {},
): Promise<CappedBody> {
  const shared = options.shared === true;
  if (body === null) return { data: join([], 0, shared), bytes: 0, complete: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes + value.byteLength > maxBytes) {
      await reader.cancel().catch(() => {});
      chunks.push(value.subarray(0, maxBytes - bytes));
      return { data: join(chunks, maxBytes, shared), bytes: maxBytes, complete: false };
    }
    bytes += value.byteLength;
    chunks.push(value);
  }
  return { data: join(chunks, bytes, shared), bytes, complete: true };
}
