import type { SqlExecutor } from '../database/database';
import type { BrainHitRecord } from './brain-record';
import { capCharacters, iso } from './brain-rows';
import { type HitRow, MAX_COUNTED_TERMS, recallSql } from './recall-sql';

/** Longest snippet, in characters: `ts_headline` bounds words, not their length. */
const MAX_SNIPPET_CHARACTERS = 300;
/** `'lexeme'` in tsquery text (a doubled quote is a quote inside it): linear, the two branches never overlap. */
const LEXEME = /'(?:[^']|'')*'/g;

/**
 * The agent's active pages matching `query` (already checked), best first: pages holding every term
 * of the query first, found through the GIN index; when they are fewer than `limit`, pages holding
 * some of its terms next, so a question asked in other words than the page's still finds it. At most
 * `maxRecallRows` matching pages are considered per search (see `recallSql`).
 */
export async function searchPages(
  executor: SqlExecutor,
  request: { agentId: string; query: string; tags: string[]; limit: number },
  maxRecallRows: number,
): Promise<BrainHitRecord[]> {
  const { agentId, query, tags, limit } = request;
  const { rows: parsed } = await executor.query<{ terms: string }>(
    `SELECT websearch_to_tsquery('english', $1)::text AS terms`,
    [query],
  );
  const everyTerm = parsed[0]?.terms ?? '';
  if (everyTerm === '') return [];
  // A query that excludes a word (`!`) is taken as it is: "some of its terms" would turn the
  // exclusion into an alternative. Otherwise its terms (a word, or a quoted phrase) count one by one.
  const terms = (everyTerm.includes('!') ? [everyTerm] : everyTerm.split(' & ')).slice(0, MAX_COUNTED_TERMS);
  const inTitle = terms.map((term) => term.replace(LEXEME, (lexeme) => `${lexeme}:AB`));
  const search = (match: string, where: string, count: number) =>
    executor.query<HitRow>(recallSql(terms.length, where, maxRecallRows), [
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
