/** A response body read up to a byte cap. */
export interface CappedBody {
  /** The bytes read: the whole body, or its first `maxBytes` bytes when it went over the cap. */
  data: Uint8Array;
  /** How many bytes `data` holds. */
  bytes: number;
  /** False when the body was longer than the cap and the rest was cancelled unread. */
  complete: boolean;
}

/**
 * Reads a response body (counted after decompression, so a gzip bomb stops at the cap) up to
 * `maxBytes` bytes and cancels the rest. Shared by `web_fetch` and the search adapters.
 *
 * Contract: never throws for size (check `complete`); rejects when the stream fails (abort,
 * timeout, a reset connection), so the caller classifies that as it classifies the request.
 */
export async function readCappedBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<CappedBody> {
  if (body === null) return { data: new Uint8Array(), bytes: 0, complete: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes + value.byteLength > maxBytes) {
      await reader.cancel().catch(() => {});
      chunks.push(value.subarray(0, maxBytes - bytes));
      return { data: Buffer.concat(chunks), bytes: maxBytes, complete: false };
    }
    bytes += value.byteLength;
    chunks.push(value);
  }
  return { data: Buffer.concat(chunks), bytes, complete: true };
}
