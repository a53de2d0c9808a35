import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, type Schema, unwrap } from '../api/client';
import { useLiveEvents, useLiveState } from '../api/live-events';
import { ErrorAlert } from '../ui/error-alert';
import { errorText, formatCount, formatDuration, formatTime, turnDuration } from '../ui/format';
import { Loading } from '../ui/loading';
import { useNow } from '../ui/now';
import { StatusText } from '../ui/status-text';
import { StreamStateText } from '../ui/stream-state-text';
import { type Column, TableHead } from '../ui/table-head';
import { TurnSource } from '../ui/turn-source';
import {
  filtersText,
  matchesFilters,
  TurnFilterForm,
  type TurnFilters,
  useTurnFilters,
} from './turn-filters';

/** One turn of the daemon (`GET /v1/turns`, and the live feed's `turn` events). */
export type Turn = Schema<'Turn'>;

const COLUMNS: Column[] = [
  { label: 'Turn' },
  { label: 'Agent' },
  { label: 'Source' },
  { label: 'Status' },
  { label: 'Started' },
  { label: 'Duration', number: true },
  { label: 'Tokens', number: true },
];

/** Whether a turn is still under way (its duration ticks, it can be cancelled). */
export function isActive(turn: Pick<Turn, 'status'>): boolean {
  return turn.status === 'running' || turn.status === 'waiting-approval';
}

/** Newest first, as the daemon lists them. */
function byNewest(a: Turn, b: Turn): number {
  return Date.parse(b.createdAt) - Date.parse(a.createdAt);
}

/** The turns shown, one row each, their durations as of `now`. */
function TurnsTable({ turns, now }: { turns: readonly Turn[]; now: number }) {
  return (
    <table class="list turns">
      <caption class="visually-hidden">Turns, newest first</caption>
      <TableHead columns={COLUMNS} />
      <tbody>
        {turns.map((turn) => (
          <tr key={turn.id}>
            <td class="turn-title">
              <Link href={`/turns/${turn.id}`}>{turn.title === '' ? turn.id : turn.title}</Link>
              <span class="id">{turn.id}</span>
            </td>
            <td>{turn.agent}</td>
            <td>
              <TurnSource turn={turn} />
            </td>
            <td>
              <StatusText status={turn.status} />
            </td>
            <td>{formatTime(turn.createdAt)}</td>
            <td class="number">{formatDuration(turnDuration(turn, now))}</td>
            <td class="number">{formatCount(turn.usage.totalTokens)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The list with a turn from the live feed: a shown turn is updated even when it no longer matches (it
 * does not vanish under the operator's eyes); a new one is added when it matches. The feed's turns
 * carry no `origin`: the one listed stays.
 */
function withLiveTurn(shown: Turn[], turn: Turn, filters: TurnFilters): Turn[] {
  const at = shown.findIndex((entry) => entry.id === turn.id);
  if (at !== -1) return shown.map((entry, index) => (index === at ? { ...entry, ...turn } : entry));
  if (!matchesFilters(turn, filters)) return shown;
  return [turn, ...shown].sort(byNewest);
}

/** `#/turns`: the turns of the agents served, newest first, filtered, paged and kept live. */
export function TurnsPage() {
  const live = useLiveState();
  const [filters, setFilters] = useTurnFilters();
  const [turns, setTurns] = useState<Turn[] | undefined>(undefined);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loadingMore, setLoadingMore] = useState(false);
  // Answers of an older load (filters changed meanwhile) are dropped.
  const generation = useRef(0);
  // The feed's turns that came while the list was loading: its answer may predate them, so they are
  // applied over it (a turn started meanwhile would otherwise vanish until the next reload).
  const arrivedDuringLoad = useRef<Turn[] | undefined>(undefined);

  const load = useCallback((next: TurnFilters) => {
    const current = ++generation.current;
    arrivedDuringLoad.current = [];
    unwrap(api.GET('/v1/turns', { params: { query: next } })).then(
      (page) => {
        if (current !== generation.current) return;
        const arrived = arrivedDuringLoad.current ?? [];
        arrivedDuringLoad.current = undefined;
        setTurns(arrived.reduce((shown, turn) => withLiveTurn(shown, turn, next), page.turns));
        setCursor(page.nextCursor);
        setError(undefined);
      },
      (failure: unknown) => {
        if (current !== generation.current) return;
        arrivedDuringLoad.current = undefined;
        setError(errorText(failure));
      },
    );
  }, []);
  // The filters come from the URL: a new object each render, the same list while its text is the same.
  const filtersKey = JSON.stringify(filters);
  useEffect(() => load(filters), [filtersKey, load]);

  const loadMore = () => {
    if (cursor === undefined) return;
    const current = generation.current;
    setLoadingMore(true);
    unwrap(api.GET('/v1/turns', { params: { query: { ...filters, cursor } } }))
      .then(
        (page) => {
          if (current !== generation.current) return;
          setTurns((shown) => {
            const known = new Set((shown ?? []).map((turn) => turn.id));
            return [...(shown ?? []), ...page.turns.filter((turn) => !known.has(turn.id))];
          });
          setCursor(page.nextCursor);
        },
        (failure: unknown) => setError(errorText(failure)),
      )
      .finally(() => setLoadingMore(false));
  };

  useLiveEvents({
    onEvent: (event) => {
      if (event.type !== 'turn') return;
      const turn = event.data as Turn;
      arrivedDuringLoad.current?.push(turn);
      setTurns((shown) => (shown === undefined ? shown : withLiveTurn(shown, turn, filters)));
    },
    onOpen: () => load(filters),
  });

  // The first render with the table's rows: the browser test reads it as the time to interactive.
  useEffect(() => {
    if (turns !== undefined && performance.getEntriesByName('console:turns-rendered').length === 0) {
      performance.mark('console:turns-rendered');
    }
  }, [turns]);

  const now = useNow(turns?.some(isActive) ?? false);
  return (
    <section aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title">Turns</h1>
        <output class="live-state">
          <StreamStateText state={live.state} error={live.error} />
        </output>
      </div>
      <TurnFilterForm filters={filters} onChange={setFilters} />
      <ErrorAlert error={error} />
      {turns === undefined ? (
        <Loading error={error} text="Loading turns…" />
      ) : (
        <>
          <TurnsTable turns={turns} now={now} />
          {turns.length === 0 ? <p class="hint">No turns recorded{filtersText(filters)}.</p> : null}
          {cursor === undefined ? null : (
            <button type="button" onClick={loadMore} disabled={loadingMore}>
              {loadingMore ? 'Loading…' : 'Load older turns'}
            </button>
          )}
        </>
      )}
    </section>
  );
}
