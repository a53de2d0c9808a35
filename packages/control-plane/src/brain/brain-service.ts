import { randomUUID } from 'node:crypto';
import type { Database, SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import { checkLimit } from '../values/check-limit';
import { checkStoredText, toStorableText } from '../values/check-stored-value';
import type {
  BrainHitRecord,
  BrainPageDetails,
  BrainPageRecord,
  BrainPageSummary,
  BrainWriteRecord,
  RecallRequest,
  RememberRequest,
} from './brain-record';

/** Limits on Brain pages. */
export interface BrainLimits {
  /** The largest page body, in UTF-8 bytes. */
  maxPageBytes: number;
}

/** The largest title, in UTF-8 bytes. */
const MAX_TITLE_BYTES = 300;
/** Tags per page, and the largest tag in UTF-8 bytes. */
const MAX_TAGS = 20;
const MAX_TAG_BYTES = 64;
/** The largest query, in UTF-8 bytes: more words than any page search needs. */
const MAX_QUERY_BYTES = 2048;
/** Most pages one `recall` returns. */
const MAX_RECALL_LIMIT = 50;
/** Longest snippet, in characters: `ts_headline` bounds words, not their length. */
const MAX_SNIPPET_CHARACTERS = 300;
/** Times a write by title is retried when a concurrent write created the same title first. */
const WRITE_ATTEMPTS = 3;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// The text search configuration of every page and query. Weights: the title says most about a page (A),
// its tags next (B), its body least per word (D), so a page titled with the query's words ranks first.
const SEARCH_VECTOR = (title: string, tags: string, body: string) =>
  `setweight(to_tsvector('english', ${title}), 'A') || ` +
  `setweight(to_tsvector('english', array_to_string(${tags}, ' ')), 'B') || ` +
  `setweight(to_tsvector('english', ${body}), 'D')`;

const HEADLINE_OPTIONS =
  'MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … ", StartSel="", StopSel=""';

interface HitRow {
  id: string;
  title: string;
  tags: string[];
  version: number;
  updated_at: Date;
  matched_terms: number;
  rank: number;
  snippet: string;
}

/**
 * Terms of a query counted one by one (coordination, rarity, title hits). A longer query's further
 * terms still count in the every-term pass, not in the some-terms one.
 */
const MAX_COUNTED_TERMS = 16;
/** Pages ranked with `ts_rank_cd` per query: the best by the cheap signals, whatever matched. */
const RANKED_CANDIDATES = 100;

/**
 * The recall query over the pages matching `$5` (and `where`): `$1` agent, `$2` the query with every
 * term, `$3` tags, `$4` limit, `$5` the tsquery pages must match, `$6...` each counted term alone, then
 * the same term restricted to the title and tags (weights A and B).
 *
 * Order: pages holding more of the terms first (coordination), whatever the weight of one term in
 * another page's title; then `ts_rank_cd` (title words weigh most, then tags, then the body; normalised
 * by the page's length); then the most recent.
 *
 * The work is bounded for a query of frequent words (thousands of matching pages): each page gets only
 * cheap signals from its search vector in one pass (which terms it holds, which of them in its title or
 * tags, and how rare the terms it holds are among the matching pages: the sum of their inverse document
 * frequencies); `ts_rank_cd` and the snippet run on the best 100 candidates by those
 * signals only. With fewer matching pages than that, every one is ranked.
 */
function recallSql(terms: number, where: string): string {
  const counted = Array.from({ length: terms }, (_, index) => index);
  const held = counted.map((index) => `search @@ $${6 + index}::tsquery AS held_${index}`);
  const headed = counted.map((index) => `search @@ $${6 + terms + index}::tsquery AS headed_${index}`);
  const sum = (parts: string[]) => (parts.length === 0 ? '0' : parts.join(' + '));
  const rarity = counted.map(
    (index) => `CASE WHEN held_${index} THEN ln((pages + 1.0) / pages_holding_${index}) ELSE 0 END`,
  );
  // Materialised, so the rest works on these few columns: a window or join over the rows of the
  // scan would carry each page's search vector along (and spill it to disk for thousands of pages).
  return `WITH matched AS MATERIALIZED (
    SELECT id, updated_at, ${[...held, ...headed].join(', ')}
    FROM switchyard.brain_pages
    WHERE agent_id = $1 AND archived_at IS NULL AND tags @> $3::text[] AND search @@ $5::tsquery AND ${where}
  ), totals AS (
    SELECT count(*) AS pages${counted.map((index) => `, count(*) FILTER (WHERE held_${index}) AS pages_holding_${index}`).join('')}
    FROM matched
  ), signals AS (
    SELECT id, updated_at,
           ${sum(counted.map((index) => `held_${index}::int`))} AS matched_terms,
           ${sum(rarity)} AS rarity,
           ${sum(counted.map((index) => `headed_${index}::int`))} AS headed_terms
    FROM matched, totals
  ), candidates AS (
    SELECT id, matched_terms FROM signals
    ORDER BY matched_terms DESC, headed_terms DESC, rarity DESC, updated_at DESC, id
    LIMIT ${RANKED_CANDIDATES}
  ), best AS (
    SELECT p.id, p.title, p.tags, p.body, p.version, p.updated_at, c.matched_terms,
           ts_rank_cd(p.search, $5::tsquery, 1) AS rank
    FROM candidates c JOIN switchyard.brain_pages p ON p.id = c.id
    ORDER BY c.matched_terms DESC, rank DESC, p.updated_at DESC, p.id
    LIMIT $4
  )
  SELECT id, title, tags, version, updated_at, matched_terms, rank,
         ts_headline('english', body, $5::tsquery, '${HEADLINE_OPTIONS}') AS snippet
  FROM best ORDER BY matched_terms DESC, rank DESC, updated_at DESC, id`;
}

/** `'lexeme'` in tsquery text (a doubled quote is a quote inside it): linear, the two branches never overlap. */
const LEXEME = /'(?:[^']|'')*'/g;

interface PageRow {
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

const PAGE_COLUMNS = `id, agent_id, title, body, tags, version, version AS latest_version, created_at, updated_at,
  archived_at`;

function iso(value: Date): string {
  return new Date(value).toISOString();
}

function toPage(row: PageRow): BrainPageRecord {
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
function capCharacters(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = /[\uD800-\uDBFF]$/.test(text.slice(0, max)) ? max - 1 : max;
  return `${text.slice(0, cut)}…`;
}

function checkTitle(value: unknown): string {
  if (typeof value !== 'string') throw new ControlPlaneInputError('title', 'must be a string');
  // A title is one line: any run of whitespace (newlines included) becomes one space.
  return checkStoredText('title', toStorableText(value).replace(/\s+/g, ' ').trim(), {
    maxBytes: MAX_TITLE_BYTES,
  });
}

function checkTags(value: unknown, field = 'tags'): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ControlPlaneInputError(field, 'must be an array of strings');
  if (value.length > MAX_TAGS) {
    throw new ControlPlaneInputError(
      field,
      `has ${value.length} tags; at most ${MAX_TAGS} are kept per page`,
    );
  }
  const tags: string[] = [];
  for (const [index, tag] of value.entries()) {
    if (typeof tag !== 'string') throw new ControlPlaneInputError(`${field}[${index}]`, 'must be a string');
    const normalised = checkStoredText(
      `${field}[${index}]`,
      toStorableText(tag).trim().toLowerCase().replace(/\s+/g, '-'),
      { maxBytes: MAX_TAG_BYTES },
    );
    if (!tags.includes(normalised)) tags.push(normalised);
  }
  return tags;
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag, index) => tag === b[index]);
}

/** True for PostgreSQL's unique_violation, as pg and PGlite report it. */
function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/** Thrown inside a write's transaction when a concurrent write took the title first: the write is retried. */
class TitleTaken extends Error {}

/**
 * The control plane's Brain: each agent's durable knowledge pages, with every earlier version kept and
 * full-text recall (PostgreSQL's own text search: a `tsvector` per page, `websearch_to_tsquery`,
 * `ts_rank_cd`), identical on PGlite and PostgreSQL. It has the shape of `@switchyard/tools-brain`'s
 * `BrainService`.
 *
 * Contract: `remember`, `recall`, `getPage` and `forget` act only on `agentId`'s pages: another agent's
 * page id is an unknown id. Model-made text never makes a write fail over a character (NUL and lone
 * surrogates become U+FFFD); a field over its limit, an empty title or body, an unknown or forgotten
 * `pageId`, or a title another active page of the agent has is refused with `ControlPlaneInputError`
 * naming the field, before anything is written. A changed page's previous version is kept.
 *
 * @example
 * await controlPlane.brain.remember({ agentId: 'ada', title: 'Deploys', body: 'Run make deploy.', tags: ['ops'] });
 * const hits = await controlPlane.brain.recall({ agentId: 'ada', query: 'how to deploy', limit: 5 });
 * const page = await controlPlane.brain.getPage({ agentId: 'ada', pageId: hits[0].pageId });
 */
export class ControlPlaneBrainService {
  readonly #database: Database;
  readonly #limits: BrainLimits;

  /** Use `controlPlane.brain` rather than constructing one. */
  constructor(database: Database, limits: BrainLimits) {
    this.#database = database;
    this.#limits = limits;
  }

  /**
   * Writes a page. With `pageId`: a new version of that page. Without: a new version of the agent's
   * active page with this title (case-insensitive), or a new page. Writing what the page already says
   * (same title, body and tags) stores nothing and answers `unchanged`.
   *
   * Contract: throws `ControlPlaneInputError` as the class says; the previous version of a changed page
   * is kept (`getPage({ version })`, `showPage`).
   */
  async remember(request: RememberRequest): Promise<BrainWriteRecord> {
    const agentId = checkAgentId(request.agentId);
    const title = checkTitle(request.title);
    if (typeof request.body !== 'string') throw new ControlPlaneInputError('body', 'must be a string');
    const body = checkStoredText('body', toStorableText(request.body), {
      maxBytes: this.#limits.maxPageBytes,
    });
    const tags = checkTags(request.tags);
    const pageId = request.pageId;
    if (pageId !== undefined && (typeof pageId !== 'string' || !UUID.test(pageId))) {
      throw new ControlPlaneInputError(
        'pageId',
        `you have no page ${JSON.stringify(pageId)}; leave pageId out to write a new page`,
      );
    }
    const write = { agentId, title, body, tags };
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#database.transaction(async (transaction) => {
          if (pageId !== undefined) return this.#rewrite(transaction, pageId, write);
          const { rows } = await transaction.query<{ id: string }>(
            `SELECT id FROM switchyard.brain_pages
             WHERE agent_id = $1 AND lower(title) = lower($2) AND archived_at IS NULL FOR UPDATE`,
            [agentId, title],
          );
          const existing = rows[0]?.id;
          if (existing !== undefined) return this.#rewrite(transaction, existing, write);
          const inserted = await transaction.query<PageRow>(
            `INSERT INTO switchyard.brain_pages (id, agent_id, title, body, tags, search)
             VALUES ($1, $2, $3, $4, $5::text[], ${SEARCH_VECTOR('$3::text', '$5::text[]', '$4::text')})
             ON CONFLICT (agent_id, lower(title)) WHERE archived_at IS NULL DO NOTHING
             RETURNING ${PAGE_COLUMNS}`,
            [randomUUID(), agentId, title, body, tags],
          );
          const row = inserted.rows[0];
          // A concurrent write created this title after the SELECT: write again, as a rewrite of it.
          if (row === undefined) throw new TitleTaken();
          return { status: 'created' as const, page: toPage(row) };
        });
      } catch (error) {
        if (!(error instanceof TitleTaken) || attempt >= WRITE_ATTEMPTS) throw error;
      }
    }
  }

  /** A new version of page `pageId` (locked), keeping the one it replaces. */
  async #rewrite(
    transaction: SqlExecutor,
    pageId: string,
    write: { agentId: string; title: string; body: string; tags: string[] },
  ): Promise<BrainWriteRecord> {
    const { rows } = await transaction.query<PageRow>(
      `SELECT ${PAGE_COLUMNS} FROM switchyard.brain_pages WHERE id = $1 AND agent_id = $2 FOR UPDATE`,
      [pageId, write.agentId],
    );
    const current = rows[0];
    if (current === undefined) {
      throw new ControlPlaneInputError(
        'pageId',
        `you have no page ${pageId}; leave pageId out to write a new page`,
      );
    }
    if (current.archived_at !== null) {
      throw new ControlPlaneInputError(
        'pageId',
        `page ${pageId} was forgotten; leave pageId out to write a new page`,
      );
    }
    if (current.title === write.title && current.body === write.body && sameTags(current.tags, write.tags)) {
      return { status: 'unchanged', page: toPage(current) };
    }
    if (current.title.toLowerCase() !== write.title.toLowerCase()) {
      const { rows: others } = await transaction.query<{ id: string }>(
        `SELECT id FROM switchyard.brain_pages
         WHERE agent_id = $1 AND lower(title) = lower($2) AND archived_at IS NULL AND id <> $3`,
        [write.agentId, write.title, pageId],
      );
      if (others[0] !== undefined) throw titleTaken(write.title, others[0].id);
    }
    await transaction.query(
      `INSERT INTO switchyard.brain_page_versions (page_id, version, title, body, tags, written_at)
       SELECT id, version, title, body, tags, updated_at FROM switchyard.brain_pages WHERE id = $1`,
      [pageId],
    );
    try {
      const updated = await transaction.query<PageRow>(
        `UPDATE switchyard.brain_pages
         SET title = $2, body = $3, tags = $4::text[], search = ${SEARCH_VECTOR('$2::text', '$4::text[]', '$3::text')},
             version = version + 1, updated_at = clock_timestamp()
         WHERE id = $1 RETURNING ${PAGE_COLUMNS}`,
        [pageId, write.title, write.body, write.tags],
      );
      return { status: 'updated', page: toPage(updated.rows[0] as PageRow) };
    } catch (error) {
      // Another page took the title between the check and the update.
      if (isUniqueViolation(error)) throw titleTaken(write.title);
      throw error;
    }
  }

  /**
   * The agent's active pages matching `query`, best first: pages holding more of the query's terms
   * first (every term before some), then by `ts_rank_cd` (title words weigh most, then tags, then the
   * body), then the most recently written. A query of only common words (`the`, `of`) matches nothing.
   *
   * Contract: throws `ControlPlaneInputError` for a bad agent, an empty or oversize query, bad tags or a
   * limit outside 1 to 50. Work is bounded for any query: its size is capped, `ts_rank_cd` runs on at
   * most 100 candidates chosen by cheap signals, and snippets are built for the returned pages only.
   */
  async recall(request: RecallRequest): Promise<BrainHitRecord[]> {
    const agentId = checkAgentId(request.agentId);
    if (typeof request.query !== 'string') throw new ControlPlaneInputError('query', 'must be a string');
    const query = checkStoredText('query', toStorableText(request.query), { maxBytes: MAX_QUERY_BYTES });
    const tags = checkTags(request.tags);
    const limit = checkLimit(request.limit, MAX_RECALL_LIMIT);
    const { rows: parsed } = await this.#database.query<{ terms: string }>(
      `SELECT websearch_to_tsquery('english', $1)::text AS terms`,
      [query],
    );
    const everyTerm = parsed[0]?.terms ?? '';
    if (everyTerm === '') return [];
    // A query that excludes a word (`!`) is taken as it is: "some of its terms" would turn the
    // exclusion into an alternative. Otherwise its terms (a word, or a quoted phrase) count one by one.
    const terms = (everyTerm.includes('!') ? [everyTerm] : everyTerm.split(' & ')).slice(
      0,
      MAX_COUNTED_TERMS,
    );
    const inTitle = terms.map((term) => term.replace(LEXEME, (lexeme) => `${lexeme}:AB`));
    const search = (match: string, where: string, count: number) =>
      this.#database.query<HitRow>(recallSql(terms.length, where), [
        agentId,
        everyTerm,
        tags,
        count,
        match,
        ...terms,
        ...inTitle,
      ]);
    // Pages holding every term, found through the GIN index: usually few. (The condition is true for
    // them all; it only gives `$2` its type.)
    const every = (await search(everyTerm, '$2::tsquery IS NOT NULL', limit)).rows;
    // Too few: pages holding some of the terms come next, so a question asked in other words than the
    // page's still finds it.
    const some =
      every.length < limit && terms.length > 1
        ? (await search(terms.join(' | '), 'NOT search @@ $2::tsquery', limit - every.length)).rows
        : [];
    const hit = (row: HitRow, everyTerm: boolean): BrainHitRecord => ({
      pageId: row.id,
      title: row.title,
      tags: row.tags,
      snippet: capCharacters(row.snippet.trim(), MAX_SNIPPET_CHARACTERS),
      version: row.version,
      updatedAt: iso(row.updated_at),
      matchedTerms: row.matched_terms,
      everyTerm,
      rank: Number(row.rank),
    });
    return [...every.map((row) => hit(row, true)), ...some.map((row) => hit(row, false))];
  }

  /**
   * One of the agent's active pages: its current version, or the earlier `version` asked for.
   *
   * Contract: null for an id that is not one of the agent's active pages (another agent's, a forgotten
   * one, a malformed id) or a version it does not have.
   */
  async getPage(request: {
    agentId: string;
    pageId: string;
    version?: number;
  }): Promise<BrainPageRecord | null> {
    const agentId = checkAgentId(request.agentId);
    const { pageId, version } = request;
    if (typeof pageId !== 'string' || !UUID.test(pageId)) return null;
    if (version !== undefined && (!Number.isSafeInteger(version) || version < 1)) return null;
    const { rows } = await this.#database.query<PageRow>(
      `SELECT ${PAGE_COLUMNS} FROM switchyard.brain_pages
       WHERE id = $1 AND agent_id = $2 AND archived_at IS NULL`,
      [pageId, agentId],
    );
    const current = rows[0];
    if (current === undefined) return null;
    if (version === undefined || version === current.version) return toPage(current);
    const { rows: earlier } = await this.#database.query<PageRow>(
      `SELECT page_id AS id, title, body, tags, version, written_at AS updated_at
       FROM switchyard.brain_page_versions WHERE page_id = $1 AND version = $2`,
      [pageId, version],
    );
    const row = earlier[0];
    if (row === undefined) return null;
    return toPage({
      ...row,
      agent_id: current.agent_id,
      latest_version: current.version,
      created_at: current.created_at,
      archived_at: null,
    });
  }

  /**
   * Archives one of the agent's pages: `recall` and `getPage` no longer show it; it stays stored, with
   * its versions, for `showPage` and `listPages({ includeArchived })`.
   *
   * Contract: null for an id that is not one of the agent's active pages.
   */
  async forget(request: { agentId: string; pageId: string }): Promise<BrainPageRecord | null> {
    const agentId = checkAgentId(request.agentId);
    const { pageId } = request;
    if (typeof pageId !== 'string' || !UUID.test(pageId)) return null;
    const { rows } = await this.#database.query<PageRow>(
      `UPDATE switchyard.brain_pages SET archived_at = clock_timestamp()
       WHERE id = $1 AND agent_id = $2 AND archived_at IS NULL RETURNING ${PAGE_COLUMNS}`,
      [pageId, agentId],
    );
    return rows[0] === undefined ? null : toPage(rows[0]);
  }

  /**
   * The agent's pages without their bodies, most recently written first: active ones, or with
   * `includeArchived` forgotten ones too. For operators (`switchyard brain list`).
   */
  async listPages(request: {
    agentId: string;
    includeArchived?: boolean;
    limit?: number;
  }): Promise<BrainPageSummary[]> {
    const agentId = checkAgentId(request.agentId);
    const limit = checkLimit(request.limit, 1000, 100);
    const { rows } = await this.#database.query<Omit<PageRow, 'body' | 'latest_version'> & { bytes: number }>(
      `SELECT id, agent_id, title, tags, version, octet_length(body) AS bytes, created_at, updated_at, archived_at
       FROM switchyard.brain_pages
       WHERE agent_id = $1 AND ($2 OR archived_at IS NULL)
       ORDER BY updated_at DESC, id LIMIT $3`,
      [agentId, request.includeArchived === true, limit],
    );
    return rows.map((row) => ({
      pageId: row.id,
      agentId: row.agent_id,
      title: row.title,
      tags: row.tags,
      version: row.version,
      bytes: Number(row.bytes),
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
      archivedAt: row.archived_at === null ? null : iso(row.archived_at),
    }));
  }

  /**
   * Any page by id, whichever agent it belongs to and forgotten or not, with the versions kept: for
   * operators (`switchyard brain show`), never for a model.
   *
   * Contract: null for an unknown or malformed id.
   */
  async showPage(request: { pageId: string }): Promise<BrainPageDetails | null> {
    const { pageId } = request;
    if (typeof pageId !== 'string' || !UUID.test(pageId)) return null;
    const { rows } = await this.#database.query<PageRow>(
      `SELECT ${PAGE_COLUMNS} FROM switchyard.brain_pages WHERE id = $1`,
      [pageId],
    );
    const row = rows[0];
    if (row === undefined) return null;
    const { rows: versions } = await this.#database.query<{
      version: number;
      title: string;
      bytes: number;
      written_at: Date;
    }>(
      `SELECT version, title, octet_length(body) AS bytes, written_at FROM switchyard.brain_page_versions
       WHERE page_id = $1 ORDER BY version`,
      [pageId],
    );
    return {
      ...toPage(row),
      agentId: row.agent_id,
      versions: [
        ...versions.map((version) => ({
          version: version.version,
          title: version.title,
          bytes: Number(version.bytes),
          writtenAt: iso(version.written_at),
        })),
        {
          version: row.version,
          title: row.title,
          bytes: Buffer.byteLength(row.body, 'utf8'),
          writtenAt: iso(row.updated_at),
        },
      ],
    };
  }
}

function titleTaken(title: string, otherPageId?: string): ControlPlaneInputError {
  return new ControlPlaneInputError(
    'title',
    otherPageId === undefined
      ? `another of your pages is titled ${JSON.stringify(title)}; choose another title or rewrite that page`
      : `your page ${otherPageId} is titled ${JSON.stringify(title)}; rewrite that page (pageId ${otherPageId}) or choose another title`,
  );
}
