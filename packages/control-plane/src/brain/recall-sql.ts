/** A row of the recall query. */
export interface HitRow {
  id: string;
  title: string;
  tags: string[];
  version: number;
  updated_at: Date;
  matched_terms: number;
  rank: number;
  snippet: string;
}

const HEADLINE_OPTIONS =
  'MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … ", StartSel="", StopSel=""';

/**
 * Terms of a query counted one by one (coordination, rarity, title hits). A longer query's further
 * terms still count in the every-term pass, not in the some-terms one.
 */
export const MAX_COUNTED_TERMS = 16;
/** Pages ranked with `ts_rank_cd` per query: the best by the cheap signals, whatever matched. */
const RANKED_CANDIDATES = 100;
/**
 * Characters of a page its snippet is taken from. `ts_headline` parses all the text it is given: five
 * 60 KB pages took 50 to 130 ms of PGlite's one connection, their first 8,192 characters 8 to 16 ms,
 * and twenty snippets of 8,192 characters about 25 ms of a recall over 10,000 pages, of 4,096 about
 * half that. A long page's snippet comes from its start; `get_page` reads the rest.
 */
export const SNIPPET_SOURCE_CHARACTERS = 4096;

/**
 * The recall query over the agent's pages matching `$5` (and `where`): `$1` agent, `$2` the query with
 * every term, `$3` tags, `$4` limit, `$5` the tsquery pages must match, `$6...` each counted term alone,
 * then the same term restricted to the title and tags (weights A and B).
 *
 * Order: pages holding more of the terms first (coordination), whatever the weight of one term in
 * another page's title; then `ts_rank_cd` (title words weigh most, then tags, then the body; normalised
 * by the page's length); then the most recent.
 *
 * The work is bounded whatever the query and the pages: the pages matching `$5` are found through the
 * GIN index, and only the newest `maxRows` of them are considered (`picked`: ids and dates only, so no
 * search vector is read for the rest). Each considered page gets cheap signals from its search vector
 * in one pass (which terms it holds, which of them in its title or tags, and how rare the terms it holds
 * are among the considered pages: the sum of their inverse document frequencies); `ts_rank_cd` runs on
 * the best 100 by those signals, and the snippet on the returned pages' first 4,096 characters.
 */
export function recallSql(terms: number, where: string, maxRows: number): string {
  const counted = Array.from({ length: terms }, (_, index) => index);
  const held = counted.map((index) => `p.search @@ $${6 + index}::tsquery AS held_${index}`);
  const headed = counted.map((index) => `p.search @@ $${6 + terms + index}::tsquery AS headed_${index}`);
  const sum = (parts: string[]) => (parts.length === 0 ? '0' : parts.join(' + '));
  const rarity = counted.map(
    (index) => `CASE WHEN held_${index} THEN ln((pages + 1.0) / pages_holding_${index}) ELSE 0 END`,
  );
  // Materialised, so the rest works on these few columns: a window or join over the rows of the
  // scan would carry each page's search vector along (and spill it to disk for thousands of pages).
  return `WITH picked AS MATERIALIZED (
    SELECT id FROM switchyard.brain_pages
    WHERE agent_id = $1 AND archived_at IS NULL AND tags @> $3::text[] AND search @@ $5::tsquery
    ORDER BY updated_at DESC, id
    LIMIT ${maxRows}
  ), matched AS MATERIALIZED (
    SELECT p.id, p.updated_at, ${[...held, ...headed].join(', ')}
    FROM picked JOIN switchyard.brain_pages p ON p.id = picked.id
    WHERE ${where}
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
         ts_headline('english', left(body, ${SNIPPET_SOURCE_CHARACTERS}), $5::tsquery, '${HEADLINE_OPTIONS}') AS snippet
  FROM best ORDER BY matched_terms DESC, rank DESC, updated_at DESC, id`;
}
