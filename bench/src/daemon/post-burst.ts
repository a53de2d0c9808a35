import http from 'node:http';

/** What one request of a burst got. */
export interface BurstAnswer {
  /** The HTTP status, or undefined when no answer came. */
  status?: number;
  /** The error code when no answer came (`ECONNRESET`, `EPIPE`, `ETIMEDOUT`, `deadline`, ...). */
  error?: string;
  /** The `Retry-After` header of the answer, if any. */
  retryAfter?: string;
  /** The answer's body (the first 4 KiB). */
  body?: string;
  /** From the burst's start to the answer's end (or the error), ms. */
  ms: number;
}

/** What `postBurst` takes. */
export interface PostBurstOptions {
  /** The URL to POST to. */
  url: string;
  /** Requests, all started at once. */
  count: number;
  /** The JSON body of request `index`. */
  body(index: number): unknown;
  /** More headers of request `index` (an `Idempotency-Key`, ...). */
  headers?(index: number): Record<string, string>;
  /** Requests still unanswered this long after the start are ended and counted `deadline`, ms. Default 600 000. */
  deadlineMs?: number;
}

/**
 * Sends `count` POSTs at once, each on a connection of its own (`node:http` without an agent, so no
 * request waits for another's socket and none reuses one), and resolves with what each got: an
 * answer's status, `Retry-After` and body, or the error that took its place. No per-request timeout:
 * the daemon is given every chance to answer, until the burst's deadline.
 */
export async function postBurst(options: PostBurstOptions): Promise<BurstAnswer[]> {
  const target = new URL(options.url);
  const started = performance.now();
  const open = new Set<http.ClientRequest>();
  const deadline = setTimeout(() => {
    for (const request of open) request.destroy(Object.assign(new Error('deadline'), { code: 'deadline' }));
  }, options.deadlineMs ?? 600_000);
  try {
    return await Promise.all(
      Array.from({ length: options.count }, (_, index) => {
        const body = JSON.stringify(options.body(index));
        return new Promise<BurstAnswer>((resolve) => {
          const request = http.request(
            {
              host: target.hostname,
              port: target.port,
              path: `${target.pathname}${target.search}`,
              method: 'POST',
              agent: false,
              headers: {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(body),
                ...options.headers?.(index),
              },
            },
            (response) => {
              let text = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => {
                if (text.length < 4096) text += chunk.slice(0, 4096 - text.length);
              });
              response.on('end', () => {
                open.delete(request);
                const retryAfter = response.headers['retry-after'];
                resolve({
                  status: response.statusCode ?? 0,
                  ...(retryAfter === undefined ? {} : { retryAfter }),
                  body: text,
                  ms: performance.now() - started,
                });
              });
              response.on('error', (error: NodeJS.ErrnoException) => {
                open.delete(request);
                resolve({ error: error.code ?? error.message, ms: performance.now() - started });
              });
            },
          );
          open.add(request);
          request.on('error', (error: NodeJS.ErrnoException) => {
            open.delete(request);
            resolve({ error: error.code ?? error.message, ms: performance.now() - started });
          });
          request.end(body);
        });
      }),
    );
  } finally {
    clearTimeout(deadline);
  }
}
