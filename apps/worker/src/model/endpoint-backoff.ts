import { type Counter, metrics } from '@opentelemetry/api';
import { WORKER_TRACER_NAME } from '../telemetry/http-trace-middleware';

/** The longest back-off an endpoint's answer can impose (its `Retry-After` is not ours to trust). */
export const MAX_BACKOFF_MS = 60_000;
/** The back-off after a 429 or 5xx that says nothing of when to come back. */
export const DEFAULT_BACKOFF_MS = 1_000;

/** The metrics of endpoint back-off. */
export const BACKOFF_METRICS = {
  /** Counter: answers (429, 5xx) that held a model endpoint back, by `server.address`. */
  backoffs: 'switchyard.model.backoffs',
  /** Counter, seconds: time requests waited for an endpoint's back-off, by `server.address`. */
  waited: 'switchyard.model.backoff.wait',
} as const;

/** When an answer of a 429 or 5xx says to come back, in ms from now (capped), or the default. */
export function retryAfterMsOf(headers: Headers): number {
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.min(milliseconds, MAX_BACKOFF_MS);
  const value = headers.get('retry-after');
  if (value !== null) {
    const seconds = Number.parseFloat(value);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_BACKOFF_MS);
    const date = Date.parse(value);
    if (Number.isFinite(date)) return Math.min(Math.max(0, date - Date.now()), MAX_BACKOFF_MS);
  }
  return DEFAULT_BACKOFF_MS;
}

/**
 * One model endpoint's back-off as this process knows it: when an answer of it says to back off (a
 * 429 or a 5xx, `Retry-After` honoured up to 60 s), no request of this process is sent to it until
 * then, whichever turn asks. Kept per process (`endpointBackoffOf`): every turn, every agent.
 *
 * Contract: `ready` resolves once the endpoint may be sent a request (at once when it is not held
 * back), and rejects with the signal's reason when the signal aborts while it waits; each wait's
 * timer is held by that wait until it fires or is cleared. `observe` only ever moves the time later.
 */
export class EndpointBackoff {
  /** Epoch ms before which nothing is sent. */
  #until = 0;
  readonly #attributes: Record<string, string>;
  /** Made on first use, once the application has installed its metrics SDK (if any). */
  #counters: { backoffs: Counter; waited: Counter } | undefined;

  constructor(readonly endpoint: string) {
    let address = endpoint;
    try {
      address = new URL(endpoint).host;
    } catch {
      // Not a URL: its text is its name.
    }
    this.#attributes = { 'server.address': address };
  }

  /** Ms until requests may go again (0: now). */
  remainingMs(): number {
    return Math.max(0, this.#until - Date.now());
  }

  /** An answer of the endpoint: a 429 or 5xx holds every request back for what it says. */
  observe(status: number, headers: Headers): void {
    if (status !== 429 && status < 500) return;
    const until = Date.now() + retryAfterMsOf(headers);
    if (until > this.#until) this.#until = until;
    this.#metrics().backoffs.add(1, { ...this.#attributes, 'http.response.status_code': String(status) });
  }

  /** Waits until the endpoint may be sent a request (the back-off can grow while it waits). */
  async ready(signal?: AbortSignal | null): Promise<void> {
    const started = Date.now();
    for (let remaining = this.remainingMs(); remaining > 0; remaining = this.remainingMs()) {
      await sleep(remaining, signal ?? undefined);
    }
    const waited = Date.now() - started;
    if (waited > 0) this.#metrics().waited.add(waited / 1000, this.#attributes);
  }

  #metrics(): { backoffs: Counter; waited: Counter } {
    if (this.#counters !== undefined) return this.#counters;
    const meter = metrics.getMeter(WORKER_TRACER_NAME);
    this.#counters = {
      backoffs: meter.createCounter(BACKOFF_METRICS.backoffs, {
        unit: '{answer}',
        description: 'Answers (429, 5xx) that held a model endpoint back for the whole process',
      }),
      waited: meter.createCounter(BACKOFF_METRICS.waited, {
        unit: 's',
        description: 'Time model requests waited for an endpoint’s back-off',
      }),
    };
    return this.#counters;
  }
}

/** Sleeps `ms`, or rejects with the signal's reason once it aborts; the timer is cleared either way. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const BACKOFFS = new Map<string, EndpointBackoff>();

/** This process's back-off of the endpoint at `baseURL` (one per base URL, made on first use). */
export function endpointBackoffOf(baseURL: string): EndpointBackoff {
  let backoff = BACKOFFS.get(baseURL);
  if (backoff === undefined) {
    backoff = new EndpointBackoff(baseURL);
    BACKOFFS.set(baseURL, backoff);
  }
  return backoff;
}

/**
 * A `fetch` for the `openai` SDK (`new OpenAI({ fetch })`) that waits for the endpoint's back-off
 * before each request (the SDK's own retries included) and tells it each answer's status.
 */
export function backoffFetch(backoff: EndpointBackoff, fetchImpl: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    await backoff.ready(init?.signal);
    const response = await fetchImpl(input, init);
    backoff.observe(response.status, response.headers);
    return response;
  };
}
