import { Worker } from 'node:worker_threads';

// Runs in a worker thread: a catastrophic regular expression blocks that thread, never the
// worker's event loop, and is stopped by terminating the thread.
const MATCHER_SOURCE = `
const { parentPort } = require('node:worker_threads');
let pattern;
parentPort.on('message', (message) => {
  if (message.type === 'init') {
    pattern = new RegExp(message.source, message.flags);
    return;
  }
  const found = [];
  let count = 0;
  for (const text of message.texts) {
    const matches = [];
    const lines = text.split('\\n');
    for (let index = 0; index < lines.length && count < message.max; index += 1) {
      const line = lines[index].endsWith('\\r') ? lines[index].slice(0, -1) : lines[index];
      if (pattern.test(line)) {
        matches.push([index + 1, line]);
        count += 1;
      }
    }
    found.push(matches);
    if (count >= message.max) break;
  }
  parentPort.postMessage(found);
});
`;

/** A line that matched: its 1-based number and text. */
export type LineMatch = [line: number, text: string];

/** Thrown when matching takes longer than allowed. */
export class MatchTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the search took longer than ${timeoutMs} ms`);
    this.name = 'MatchTimeoutError';
  }
}

/** Matches a regular expression against the lines of texts in a worker thread, with a deadline. */
export class LineMatcher {
  private readonly worker: Worker;
  private readonly deadline: number;

  constructor(
    source: string,
    flags: string,
    private readonly timeoutMs: number,
  ) {
    this.worker = new Worker(MATCHER_SOURCE, { eval: true });
    this.worker.unref();
    this.worker.postMessage({ type: 'init', source, flags });
    this.deadline = Date.now() + timeoutMs;
  }

  /**
   * Returns the matching lines of each text, up to `max` in all (texts after the cap is reached
   * get no entry).
   *
   * Contract: rejects with `MatchTimeoutError` when the deadline passes (the thread is stopped),
   * or with the abort reason when `signal` fires.
   */
  match(texts: string[], max: number, signal?: AbortSignal): Promise<LineMatch[][]> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.worker.off('message', onMessage);
        this.worker.off('error', onError);
        signal?.removeEventListener('abort', onAbort);
      };
      const onMessage = (found: LineMatch[][]) => {
        cleanup();
        resolve(found);
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const onAbort = () => {
        cleanup();
        void this.worker.terminate();
        reject(signal?.reason);
      };
      const timer = setTimeout(
        () => {
          cleanup();
          void this.worker.terminate();
          reject(new MatchTimeoutError(this.timeoutMs));
        },
        Math.max(0, this.deadline - Date.now()),
      );
      this.worker.on('message', onMessage);
      this.worker.on('error', onError);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.worker.postMessage({ type: 'match', texts, max });
    });
  }

  /** Stops the thread. */
  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
