import type { BrainPageRecord } from './brain-record';

/** A page row as the queries select it (`PAGE_COLUMNS`). */
export interface PageRow {
  id: string;
  agent_id: string;
  title: string;
  body: string;
  tags: string[];
  version: number;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
}

/** The columns of a `PageRow`. */
export const PAGE_COLUMNS = `id, agent_id, title, body, tags, version, version AS latest_version, created_at, updated_at,
  archived_at`;

/** A timestamp as ISO 8601. */
export function iso(value: Date): string {
  return new Date(value).toISOString();
}

/** A page row as the service returns it. */
export function toPage(row: PageRow): BrainPageRecord {
  return {
    pageId: row.id,
    title: row.title,
    body: row.body,
    tags: row.tags,
    version: row.version,
    latestVersion: row.latest_version,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    archivedAt: row.archived_at === null ? null : iso(row.archived_at),
  };
}

/** At most `max` characters, cut between code points. */
export function capCharacters(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = /[\uD800-\uDBFF]$/.test(text.slice(0, max)) ? max - 1 : max;
  return `${text.slice(0, cut)}…`;
}
