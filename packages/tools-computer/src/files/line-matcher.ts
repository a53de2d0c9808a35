import { Worker } from 'node:worker_threads';

// Runs in a worker thread: a catastrophic regular expression blocks that thread, never the
// worker's event loop, and is stopped by terminating the thread. The thread also reads and decodes
// the files (through descriptors the main thread opened and checked): copying a 10 MB file into a
// string and cloning it into a message took the main thread 100-250 ms, and does not block here.
const MATCHER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { readSync } = require('node:fs');
const decoder = new TextDecoder('utf-8');
let pattern;
let signatures;
const isBinary = (bytes) =>
  signatures.some((signature) => signature.every((byte, index) => bytes[index] === byte)) ||
  bytes.subarray(0, 8192).includes(0);
parentPort.on('message', (message) => {
  if (message.type === 'init') {
    pattern = new RegExp(message.source, message.flags);
    signatures = message.signatures;
    return;
  }
  const found = [];
  let count = 0;
  for (const file of message.files) {
    const bytes = Buffer.allocUnsafe(file.size);
    let filled = 0;
    try {
      while (filled < file.size) {
        const read = readSync(file.fd, bytes, filled, file.size - filled, filled);
        if (read === 0) break;
        filled += read;
      }
    } catch {
      found.push({ skipped: 'unreadable', matches: [] });
      continue;
    }
    const data = bytes.subarray(0, filled);
    if (isBinary(data)) {
      found.push({ skipped: 'binary', matches: [] });
      continue;
    }
    const text = decoder.decode(data);
    const matches = [];
    // Line by line with indexOf rather than split: stops allocating once the cap is reached.
    let line = 1;
    for (let start = 0; start <= text.length && count < message.max; line += 1) {
      const newline = text.indexOf('\\n', start);
      const end = newline === -1 ? text.length : newline;
      const raw = text.slice(start, end);
      const value = raw.endsWith('\\r') ? raw.slice(0, -1) : raw;
      if (pattern.test(value)) {
        matches.push([line, value]);
        count += 1;
      }
      if (newline === -1) break;
      start = newline + 1;
    }
    found.push({ matches });
    if (count >= message.max) break;
  }
  parentPort.postMessage(found);
});
`;

/** A file for the matcher: a descriptor the caller opened, checked and keeps open until `match` settles. */
export interface MatchFile {
  /** An open descriptor of a regular file. */
  fd: number;
  /** How many bytes to read from its start (its size when it was checked). */
  size: number;
}

/** What the matcher found in one file. */
export interface FileMatches {
  /** The file was not searched: it looks binary, or reading it failed. */
  skipped?: 'binary' | 'unreadable';
  /** Matching lines. */
  matches: LineMatch[];
}

/** A line that matched: its 1-based number and text. */
export type LineMatch = [line: number, text: string];

/** Thrown when matching takes longer than allowed. */
export class MatchTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the search took longer than ${timeoutMs} ms`);
    this.name = 'MatchTimeoutError';
  }
}

/** Matches a regular expression against the lines of files in a worker thread, with a deadline. */
export class LineMatcher {
  private readonly worker: Worker;
  private readonly deadline: number;

  constructor(
    source: string,
    flags: string,
    private readonly timeoutMs: number,
    signatures: ReadonlyArray<readonly number[]>,
  ) {
    this.worker = new Worker(MATCHER_SOURCE, { eval: true });
    this.worker.unref();
    this.worker.postMessage({ type: 'init', source, flags, signatures });
    this.deadline = Date.now() + timeoutMs;
  }

  /**
   * Reads each file in the thread and returns its matching lines, up to `max` in all (files after
   * the cap is reached get no entry). Binary files (by their first bytes) are skipped.
   *
   * Contract: rejects with `MatchTimeoutError` when the deadline passes (the thread is stopped),
   * or with the abort reason when `signal` fires.
   */
  match(files: readonly MatchFile[], max: number, signal?: AbortSignal): Promise<FileMatches[]> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.worker.off('message', onMessage);
        this.worker.off('error', onError);
        signal?.removeEventListener('abort', onAbort);
      };
      const onMessage = (found: FileMatches[]) => {
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
      this.worker.postMessage({ type: 'match', files, max });
    });
  }

  /** Stops the thread. */
  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
