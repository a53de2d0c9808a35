import { ControlPlaneConfigError } from '../errors/control-plane-config-error';
import { whole } from '../values/check-option';

/** The Brain's options of `openControlPlane` (`brain.*`); every one has a default. */
export interface BrainOptions {
  /** The largest page body, in UTF-8 bytes. Default 64 KiB; at most 512 KiB (a page's search vector must fit). */
  maxPageBytes?: number;
  /** Active (not forgotten) pages one agent may keep. Default 10,000. */
  maxPagesPerAgent?: number;
  /**
   * UTF-8 bytes of page bodies one agent may have stored: its pages, forgotten ones and earlier versions
   * included, each counted as at least 1 KiB. Default 64 MiB; at least `maxPageBytes`.
   */
  maxBytesPerAgent?: number;
  /** Days an earlier version (from when it was replaced) and a forgotten page are kept. Default 30. */
  retentionDays?: number;
  /** How often this process removes what is past `retentionDays`, in seconds. Default 3600. */
  pruneIntervalSeconds?: number;
  /** Matching pages one recall considers (the newest first) for ranking. Default 500. */
  maxRecallRows?: number;
  /** A recall statement's time limit on PostgreSQL (`statement_timeout`), in ms. Default 2,000. */
  recallTimeoutMs?: number;
}

/** `BrainOptions` with every default filled in. */
export type BrainLimits = Required<BrainOptions>;

/**
 * The largest Brain page: PostgreSQL refuses a tsvector over 1 MiB, and a page's holds each distinct word
 * and its positions.
 */
export const MAX_PAGE_BYTES = 512 * 1024;

/**
 * The least a stored body counts against `maxBytesPerAgent`: a row costs its title, tags, search vector
 * and overhead too, so a stream of one-byte rewrites cannot keep millions of rows within the quota.
 */
export const MIN_STORED_BYTES = 1024;

/** The longest a timer may wait in Node (2^31 - 1 ms), in seconds. */
const MAX_TIMER_SECONDS = Math.floor(2_147_483_647 / 1000);

/**
 * Checks `openControlPlane`'s `brain` options and fills in the defaults.
 *
 * Contract: throws `ControlPlaneConfigError` naming the option (`brain.maxBytesPerAgent`, ...) for a
 * value out of range, before any database is opened.
 */
export function resolveBrainLimits(options: BrainOptions | undefined = {}): BrainLimits {
  const maxPageBytes = whole('brain.maxPageBytes', options.maxPageBytes, 64 * 1024, 1, MAX_PAGE_BYTES);
  const limits: BrainLimits = {
    maxPageBytes,
    maxPagesPerAgent: whole('brain.maxPagesPerAgent', options.maxPagesPerAgent, 10_000),
    maxBytesPerAgent: whole('brain.maxBytesPerAgent', options.maxBytesPerAgent, 64 * 1024 * 1024),
    retentionDays: whole('brain.retentionDays', options.retentionDays, 30, 1, 36_500),
    pruneIntervalSeconds: whole(
      'brain.pruneIntervalSeconds',
      options.pruneIntervalSeconds,
      3600,
      1,
      MAX_TIMER_SECONDS,
    ),
    maxRecallRows: whole('brain.maxRecallRows', options.maxRecallRows, 500, 1, 100_000),
    recallTimeoutMs: whole('brain.recallTimeoutMs', options.recallTimeoutMs, 2000, 1, 2_147_483_647),
  };
  if (limits.maxBytesPerAgent < Math.max(maxPageBytes, MIN_STORED_BYTES)) {
    throw new ControlPlaneConfigError({
      field: 'brain.maxBytesPerAgent',
      message: `must hold at least one page of brain.maxPageBytes (${maxPageBytes}), got ${limits.maxBytesPerAgent}`,
    });
  }
  return limits;
}
