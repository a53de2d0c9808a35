/** What the PGlite thread starts with. */
export interface PgliteThreadData {
  /** The data directory, already seeded and locked by the parent. */
  dataDir: string;
  /** PostgreSQL start parameters added to PGlite's defaults. */
  extraStartParams: string[];
}

/**
 * A request to the PGlite thread. `tx` names an open transaction (from `begin`'s answer); without it
 * the statement runs on the database itself. Every request is answered once, with its `id`:
 * `{ id, ok: true, value }` or `{ id, ok: false, error }`. Id 0 is the thread's start-up answer.
 */
export type PgliteRequest =
  | { kind: 'query'; id: number; text: string; values: unknown[] | undefined; tx: number | undefined }
  | { kind: 'exec'; id: number; text: string; tx: number | undefined }
  | { kind: 'begin'; id: number }
  | { kind: 'end'; id: number; tx: number; commit: boolean }
  | { kind: 'close'; id: number };

/** An error as it crosses the thread: message, name, stack and its plain own fields. */
export interface PgliteThreadError {
  message: string;
  name: string;
  stack?: string;
  fields: Record<string, unknown>;
}

/** The thread's answer to one request. */
export type PgliteAnswer =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: PgliteThreadError };
