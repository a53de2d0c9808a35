import { randomUUID } from 'node:crypto';
import type { Database, SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import { checkLimit } from '../values/check-limit';
import { checkStoredText, toStorableText } from '../values/check-stored-value';
import { checkTags, checkTitle, sameTags, titleTaken, UUID } from './brain-input';
import type { BrainLimits } from './brain-limits';
import type {
  BrainHitRecord,
  BrainPageDetails,
  BrainPageRecord,
  BrainPageSummary,
  BrainWriteRecord,
  RecallRequest,
  RememberRequest,
} from './brain-record';
import { iso, PAGE_COLUMNS, type PageRow, toPage } from './brain-rows';
import { addUsage, freeHistory, lockAgentBrain, readUsage, storedBytes } from './brain-usage';
import { type BrainPruneRecord, pruneBrain } from './prune-brain';
import { searchPages } from './search-pages';

/** The largest query, in UTF-8 bytes: more words than any page search needs. */
const MAX_QUERY_BYTES = 2048;
/** Most pages one `recall` returns. */
const MAX_RECALL_LIMIT = 50;
/** Times a write by title is retried when a concurrent write created the same title first. */
const WRITE_ATTEMPTS = 3;
/** The first prune after the control plane opens, at most: a daemon restarted often still prunes. */
const FIRST_PRUNE_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;

// The text search configuration of every page and query. Weights: the title says most about a page (A),
// its tags next (B), its body least per word (D), so a page titled with the query's words ranks first.
const SEARCH_VECTOR = (title: string, tags: string, body: string) =>
  `setweight(to_tsvector('english', ${title}), 'A') || ` +
  `setweight(to_tsvector('english', array_to_string(${tags}, ' ')), 'B') || ` +
  `setweight(to_tsvector('english', ${body}), 'D')`;

/** True for PostgreSQL's unique_violation, as pg and PGlite report it. */
function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/** True for PostgreSQL's query_canceled (a `statement_timeout`), as pg reports it. */
function isQueryCanceled(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '57014';
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
 * naming the field, before anything is written. A changed page's previous version is kept, and a
 * forgotten page too, for `retentionDays` (then `prune` removes them). Each agent's Brain is held to a
 * quota (`maxPagesPerAgent` active pages, `maxBytesPerAgent` stored bytes): a write past it first
 * removes that agent's oldest history (earlier versions, then forgotten pages), and is refused with
 * `ControlPlaneInputError` when its active pages alone would pass it.
 *
 * @example
 * await controlPlane.brain.remember({ agentId: 'ada', title: 'Deploys', body: 'Run make deploy.', tags: ['ops'] });
 * const hits = await controlPlane.brain.recall({ agentId: 'ada', query: 'how to deploy', limit: 5 });
 * const page = await controlPlane.brain.getPage({ agentId: 'ada', pageId: hits[0].pageId });
 */
export class ControlPlaneBrainService {
  readonly #database: Database;
  readonly #limits: BrainLimits;
  #pruneTimer: NodeJS.Timeout | undefined;
  #pruning: Promise<unknown> | undefined;

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
   * is kept (`getPage({ version })`, `showPage`). One agent's writes run one at a time (a transaction
   * lock), so two cannot both pass its quota.
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
          await lockAgentBrain(transaction, agentId);
          if (pageId !== undefined) return this.#rewrite(transaction, pageId, write);
          const { rows } = await transaction.query<{ id: string }>(
            `SELECT id FROM switchyard.brain_pages
             WHERE agent_id = $1 AND lower(title) = lower($2) AND archived_at IS NULL FOR UPDATE`,
            [agentId, title],
          );
          const existing = rows[0]?.id;
          if (existing !== undefined) return this.#rewrite(transaction, existing, write);
          await this.#makeRoom(transaction, agentId, storedBytes(body), 1);
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
          await addUsage(transaction, agentId, 1, storedBytes(body));
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
    // The version this write replaces stays stored, so the new body is what the write adds.
    await this.#makeRoom(transaction, write.agentId, storedBytes(write.body), 0);
    await transaction.query(
      `INSERT INTO switchyard.brain_page_versions (page_id, version, title, body, tags, written_at, agent_id, replaced_at)
       SELECT id, version, title, body, tags, updated_at, agent_id, clock_timestamp()
       FROM switchyard.brain_pages WHERE id = $1`,
      [pageId],
    );
    await addUsage(transaction, write.agentId, 0, storedBytes(write.body));
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
   * Makes room in the agent's quota for `pages` more active pages and `bytes` more stored bytes:
   * refuses a page past `maxPagesPerAgent`, and frees the agent's oldest history (earlier versions,
   * then forgotten pages) for bytes past `maxBytesPerAgent`, refusing when that is not enough. Runs
   * under the agent's lock, in the write's transaction: a refusal rolls the freeing back too.
   */
  async #makeRoom(transaction: SqlExecutor, agentId: string, bytes: number, pages: number): Promise<void> {
    const usage = await readUsage(transaction, agentId);
    const { maxPagesPerAgent, maxBytesPerAgent, retentionDays } = this.#limits;
    if (pages > 0 && usage.pages + pages > maxPagesPerAgent) {
      throw new ControlPlaneInputError(
        'title',
        `you have ${usage.pages.toLocaleString('en-US')} page${usage.pages === 1 ? '' : 's'}, the most your Brain keeps (${maxPagesPerAgent.toLocaleString('en-US')}); forget pages you no longer need, or rewrite one of them (pageId) instead of writing a new one`,
      );
    }
    const excess = usage.bytes + bytes - maxBytesPerAgent;
    if (excess <= 0) return;
    const freed = await freeHistory(transaction, agentId, excess);
    if (freed >= excess) return;
    throw new ControlPlaneInputError(
      'body',
      `this page would take your Brain past its quota of ${maxBytesPerAgent.toLocaleString('en-US')} bytes: your pages hold ${(usage.bytes - freed).toLocaleString('en-US')} bytes (each counted as at least 1,024), even without their earlier versions and forgotten pages (kept up to ${retentionDays} days); forget pages you no longer need, or shorten them or this one`,
    );
  }

  /**
   * The agent's active pages matching `query`, best first: pages holding more of the query's terms
   * first (every term before some), then by `ts_rank_cd` (title words weigh most, then tags, then the
   * body), then the most recently written. A query of only common words (`the`, `of`) matches nothing.
   *
   * Contract: throws `ControlPlaneInputError` for a bad agent, an empty or oversize query, bad tags or a
   * limit outside 1 to 50, and (field `query`) for a recall stopped by its time limit. Work is bounded
   * for any query and any pages: the query's size is capped, only the newest `maxRecallRows` matching
   * pages are considered, `ts_rank_cd` runs on at most 100 candidates chosen by cheap signals, and
   * snippets come from the returned pages' first 4,096 characters. On PostgreSQL each statement also
   * runs under `statement_timeout` (`recallTimeoutMs`); PGlite (WebAssembly, one connection) cannot
   * cancel a statement, so there the caps are the bound.
   */
  async recall(request: RecallRequest): Promise<BrainHitRecord[]> {
    const agentId = checkAgentId(request.agentId);
    if (typeof request.query !== 'string') throw new ControlPlaneInputError('query', 'must be a string');
    const query = checkStoredText('query', toStorableText(request.query), { maxBytes: MAX_QUERY_BYTES });
    const tags = checkTags(request.tags);
    const limit = checkLimit(request.limit, MAX_RECALL_LIMIT);
    return this.#withRecallTimeout((executor) =>
      searchPages(executor, { agentId, query, tags, limit }, this.#limits.maxRecallRows),
    );
  }

  /**
   * Runs a recall's statements under `statement_timeout` on PostgreSQL (in one transaction, so
   * `SET LOCAL` holds for them and ends with it), and as they are on PGlite, which cannot cancel one.
   * A statement stopped by the limit becomes a refusal the model can act on.
   */
  async #withRecallTimeout<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    if (this.#database.kind !== 'postgres') return work(this.#database);
    const timeoutMs = this.#limits.recallTimeoutMs;
    try {
      return await this.#database.transaction(async (transaction) => {
        await transaction.query(`SET LOCAL statement_timeout = ${timeoutMs}`);
        return work(transaction);
      });
    } catch (error) {
      if (!isQueryCanceled(error)) throw error;
      throw new ControlPlaneInputError(
        'query',
        `searching your Brain for this took longer than its ${timeoutMs} ms limit and was stopped; use fewer or rarer words, or tags`,
        { cause: error },
      );
    }
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
    // One statement: the page and the agent's count of active pages change together.
    const { rows } = await this.#database.query<PageRow>(
      `WITH forgotten AS (
         UPDATE switchyard.brain_pages SET archived_at = clock_timestamp()
         WHERE id = $1 AND agent_id = $2 AND archived_at IS NULL RETURNING ${PAGE_COLUMNS}
       ), counted AS (
         UPDATE switchyard.brain_usage SET pages = pages - (SELECT count(*) FROM forgotten)
         WHERE agent_id = $2 AND EXISTS (SELECT 1 FROM forgotten)
       )
       SELECT * FROM forgotten`,
      [pageId, agentId],
    );
    return rows[0] === undefined ? null : toPage(rows[0]);
  }

  /**
   * Removes, for every agent, the earlier versions replaced and the pages forgotten more than
   * `retentionDays` before `now` (default: the current time), freeing their bytes in each agent's
   * quota. The control plane runs it every `pruneIntervalSeconds` while open (see `startPruning`).
   *
   * Contract: removes nothing newer than the retention; resolves with what it removed.
   */
  async prune(options: { now?: Date } = {}): Promise<BrainPruneRecord> {
    const now = options.now ?? new Date();
    return pruneBrain(this.#database, new Date(now.getTime() - this.#limits.retentionDays * DAY_MS));
  }

  /**
   * Prunes a minute after it is called (or after `pruneIntervalSeconds`, when shorter), then every
   * `pruneIntervalSeconds`, until `stopPruning`. The timer does not keep the process alive; a failed
   * prune goes to `onError` and is tried again at the next interval. `openControlPlane` calls it.
   */
  startPruning(onError: (error: unknown) => void): void {
    if (this.#pruneTimer !== undefined) return;
    const intervalMs = this.#limits.pruneIntervalSeconds * 1000;
    const schedule = (delayMs: number) => {
      this.#pruneTimer = setTimeout(() => {
        this.#pruning = this.prune()
          .catch(onError)
          .finally(() => {
            this.#pruning = undefined;
            if (this.#pruneTimer !== undefined) schedule(intervalMs);
          });
      }, delayMs);
      this.#pruneTimer.unref();
    };
    schedule(Math.min(FIRST_PRUNE_MS, intervalMs));
  }

  /** Stops pruning, waiting for a prune under way to end. */
  async stopPruning(): Promise<void> {
    clearTimeout(this.#pruneTimer);
    this.#pruneTimer = undefined;
    await this.#pruning;
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
