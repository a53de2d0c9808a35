import type { TurnRecord, TurnRecordStatus, TurnSource, TurnUsage } from './turn-record';
import { turnTitleOf } from './turn-title';

/** The fields of a turn's token usage, as stored in its `usage` column. */
export const USAGE_FIELDS = [
  'inputTokens',
  'cachedInputTokens',
  'outputTokens',
  'reasoningTokens',
  'totalTokens',
] as const;

/** A row of `switchyard.turns`, as queries of `TURN_COLUMNS` return it. */
export interface TurnRow {
  id: string;
  agent_id: string;
  source: TurnSource;
  source_id: string | null;
  attempt: number | null;
  prompt: string;
  status: TurnRecordStatus;
  output: string;
  usage: Partial<TurnUsage>;
  iterations: number;
  error: string | null;
  events_dropped: number;
  worker_id: string;
  created_at: Date;
  ended_at: Date | null;
  heartbeat_at: Date;
  updated_at: Date;
  cancel_requested: string | null;
  resumed_count: number;
  resumed_at: Date | null;
  limited_by: string[] | null;
}

/** The columns of a `TurnRecord`, for queries of other stores that return turns. */
export const TURN_COLUMNS = `id, agent_id, source, source_id, attempt, prompt, status, output, usage, iterations, error,
  events_dropped, worker_id, created_at, ended_at, heartbeat_at, updated_at, cancel_requested, resumed_count,
  resumed_at, limited_by`;

/** A row of `TURN_COLUMNS` as a `TurnRecord` (for queries of other stores, whose rows are untyped). */
export function toTurnRecord(row: unknown): TurnRecord {
  return recordOfTurnRow(row as TurnRow);
}

/** A typed row of `TURN_COLUMNS` as a `TurnRecord`. */
export function recordOfTurnRow(row: TurnRow): TurnRecord {
  const usage = {} as TurnUsage;
  for (const field of USAGE_FIELDS) usage[field] = Number(row.usage[field] ?? 0);
  return {
    id: row.id,
    agentId: row.agent_id,
    source: row.source,
    ...(row.source_id === null ? {} : { sourceId: row.source_id }),
    ...(row.attempt === null ? {} : { attempt: row.attempt }),
    prompt: row.prompt,
    title: turnTitleOf(row.prompt),
    status: row.status,
    output: row.output,
    usage,
    iterations: row.iterations,
    ...(row.error === null ? {} : { error: row.error }),
    eventsDropped: row.events_dropped,
    workerId: row.worker_id,
    createdAt: row.created_at.toISOString(),
    ...(row.ended_at === null ? {} : { endedAt: row.ended_at.toISOString() }),
    heartbeatAt: row.heartbeat_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(row.cancel_requested === null || row.ended_at !== null
      ? {}
      : { cancelRequested: row.cancel_requested }),
    resumedCount: row.resumed_count ?? 0,
    ...(row.resumed_at === null || row.resumed_at === undefined
      ? {}
      : { resumedAt: row.resumed_at.toISOString() }),
    limitedBy: row.limited_by ?? [],
  };
}
