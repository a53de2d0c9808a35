import { WorkerConfigError } from '../config/worker-config-error';

/** `serve.maxWaitingWork` when the open-file limit leaves room for it. */
export const DEFAULT_MAX_WAITING_WORK = 1000;
/** The largest `serve.maxWaitingWork` taken. */
export const MAX_WAITING_WORK = 100_000;
/**
 * Files budgeted per unit of waiting work: its client connection (kept open by a client that
 * keeps connections alive), its model connection (or its tools' files) while it is a running turn,
 * and one more: a client beyond the bound, answered 503, needs a file until answered.
 */
const FILES_PER_UNIT = 3;
/** Files kept for everything else: the database (PGlite's files, a pool of connections), listeners, logs, MCP servers. */
const FILES_HELD_BACK = 256;

/** What `resolveWaitingWorkBound` decided. */
export interface WaitingWorkBound {
  /** The bound to shed load at. */
  maxWaitingWork: number;
  /**
   * The most connections the HTTP API keeps open (`server.maxConnections`): what the open-file
   * limit leaves beside the files held back and one model connection per unit of waiting work.
   * Undefined when the limit is unknown.
   */
  maxConnections?: number;
  /** Why it is below the default, when the open-file limit lowered it (for the log). */
  lowered?: string;
}

/**
 * The daemon's bound of waiting work (`serve.maxWaitingWork`), checked against the process's
 * open-file limit (`readOpenFileLimit`). A process out of file descriptors cannot even answer: its
 * event loop library accepts and at once closes every waiting connection (libuv's EMFILE handling),
 * which the clients see as connection resets, and nothing is logged. So the bound must fit in the
 * limit, at `FILES_PER_UNIT` files a unit beside `FILES_HELD_BACK`.
 *
 * Contract: without `configured`, the default (1000), or as much as the limit leaves room for (at
 * least 1), saying so in `lowered`. Throws `WorkerConfigError` naming `serve.maxWaitingWork` for a
 * value that is not a whole number from 1 to 100 000, or one the limit has no room for (naming the
 * limit and the most it allows). An unknown limit (not Linux) checks nothing.
 */
export function resolveWaitingWorkBound(
  configured: number | undefined,
  openFileLimit: number | undefined,
): WaitingWorkBound {
  if (
    configured !== undefined &&
    !(Number.isInteger(configured) && configured >= 1 && configured <= MAX_WAITING_WORK)
  ) {
    throw new WorkerConfigError({
      issues: [
        {
          field: 'serve.maxWaitingWork',
          message: `expected a whole number from 1 to ${MAX_WAITING_WORK}, got ${String(configured)}`,
        },
      ],
    });
  }
  const room =
    openFileLimit === undefined
      ? Number.POSITIVE_INFINITY
      : Math.max(1, Math.floor((openFileLimit - FILES_HELD_BACK) / FILES_PER_UNIT));
  // Every file but those held back and one model connection per unit is for client connections:
  // the requests under way and, beyond the bound, those answered 503.
  const connectionsBeside = (bound: number) =>
    openFileLimit === undefined
      ? {}
      : { maxConnections: Math.max(bound, openFileLimit - FILES_HELD_BACK - bound) };
  if (configured === undefined) {
    if (room >= DEFAULT_MAX_WAITING_WORK) {
      return { maxWaitingWork: DEFAULT_MAX_WAITING_WORK, ...connectionsBeside(DEFAULT_MAX_WAITING_WORK) };
    }
    return {
      maxWaitingWork: room,
      ...connectionsBeside(room),
      lowered: `serve.maxWaitingWork is ${room}, not ${DEFAULT_MAX_WAITING_WORK}: this process may open ${openFileLimit} files (ulimit -n); raise the limit for more`,
    };
  }
  if (configured > room) {
    throw new WorkerConfigError({
      issues: [
        {
          field: 'serve.maxWaitingWork',
          message: `${configured} does not fit in this process's open-file limit of ${openFileLimit} (ulimit -n): each unit of waiting work is budgeted ${FILES_PER_UNIT} files (its connection, its model connection, room to answer a 503) beside ${FILES_HELD_BACK} for the rest, so at most ${room}; lower it, or raise the limit (LimitNOFILE=, ulimit -n)`,
        },
      ],
    });
  }
  return { maxWaitingWork: configured, ...connectionsBeside(configured) };
}
