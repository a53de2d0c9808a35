import { useState } from 'preact/hooks';
import { useLocation, useSearch } from 'wouter-preact';
import type { paths } from '../api/client';
import {
  pathsV1TurnsGetParametersQuerySourceValues,
  pathsV1TurnsGetParametersQueryStatusValues,
} from '../api/openapi-types';
import { AgentFilter } from '../ui/agent-filter';
import { SelectFilter } from '../ui/select-filter';

type TurnQuery = NonNullable<paths['/v1/turns']['get']['parameters']['query']>;
/** What the turns page narrows its list by: `GET /v1/turns`'s query without the paging. */
export type TurnFilters = Pick<
  TurnQuery,
  'agent' | 'status' | 'source' | 'text' | 'createdAfter' | 'createdBefore'
>;

const NAMES = ['agent', 'status', 'source', 'text', 'createdAfter', 'createdBefore'] as const;
// The filters beside the agent's, with the values the API document lists for them.
const SELECTS = [
  { name: 'status', label: 'Status', options: pathsV1TurnsGetParametersQueryStatusValues },
  { name: 'source', label: 'Source', options: pathsV1TurnsGetParametersQuerySourceValues },
] as const;

/**
 * The filters the page's URL holds (`?text=…&status=…` before the `#`, as wouter's hash routing keeps
 * a search): a link or a reload shows the same list. Values the API would refuse are left to it: its
 * 400 is shown on the page, naming the field.
 */
export function useTurnFilters(): [TurnFilters, (next: TurnFilters) => void] {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const filters: Record<string, string> = {};
  for (const name of NAMES) {
    const value = params.get(name);
    if (value !== null && value !== '') filters[name] = value;
  }
  const set = (next: TurnFilters) => {
    const query = new URLSearchParams();
    for (const name of NAMES) {
      const value = next[name];
      if (value !== undefined && value !== '') query.set(name, value);
    }
    navigate(`/turns?${query.toString()}`, { replace: true });
  };
  return [filters as TurnFilters, set];
}

/** Whether a turn the live feed announced belongs in a list under `filters`. */
export function matchesFilters(
  turn: { agent: string; status: string; source: string; title: string; createdAt: string },
  filters: TurnFilters,
): boolean {
  const created = Date.parse(turn.createdAt);
  return (
    (filters.agent === undefined || turn.agent === filters.agent) &&
    (filters.status === undefined || turn.status === filters.status) &&
    (filters.source === undefined || turn.source === filters.source) &&
    // The feed's turns carry their title, not their prompt: a title is the prompt's first line, so a
    // match in it is a match; a turn matching further down appears when the list reloads.
    (filters.text === undefined || turn.title.toLowerCase().includes(filters.text.toLowerCase())) &&
    (filters.createdAfter === undefined || created >= Date.parse(filters.createdAfter)) &&
    (filters.createdBefore === undefined || created < Date.parse(filters.createdBefore))
  );
}

/** `2026-12-05T01:02` in the browser's zone, as a `datetime-local` input shows an ISO time. */
function localInputValue(iso: string | undefined): string {
  if (iso === undefined) return '';
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return '';
  const two = (value: number) => String(value).padStart(2, '0');
  return `${time.getFullYear()}-${two(time.getMonth() + 1)}-${two(time.getDate())}T${two(time.getHours())}:${two(time.getMinutes())}`;
}

/** A `datetime-local` input's value (the browser's zone) as an ISO 8601 UTC time; undefined when empty. */
function isoOfLocalInput(value: string): string | undefined {
  if (value === '') return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

/**
 * The filters of the turns page: the text searched for in the prompts (sent when the form is
 * submitted: Enter or "Search"), the agent, the status, the source and the time range (in the
 * browser's zone), each a labelled control.
 */
export function TurnFilterForm({
  filters,
  onChange,
}: {
  filters: TurnFilters;
  onChange(next: TurnFilters): void;
}) {
  const [text, setText] = useState(filters.text ?? '');
  const change = (name: keyof TurnFilters, value: string | undefined) => {
    const next: Record<string, string | undefined> = { ...filters, [name]: value };
    if (value === undefined || value === '') delete next[name];
    onChange(next as TurnFilters);
  };
  return (
    <form
      class="filters"
      aria-label="Turn filters"
      onSubmit={(event) => {
        event.preventDefault();
        change('text', text.trim());
      }}
    >
      <label class="filter">
        Search prompts
        <input
          type="search"
          value={text}
          maxLength={200}
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </label>
      <button type="submit">Search</button>
      <AgentFilter
        value={filters.agent ?? ''}
        onChange={(agent) => change('agent', agent)}
        any="All agents"
      />
      {SELECTS.map(({ name, label, options }) => (
        <SelectFilter
          key={name}
          label={label}
          any={`Any ${name}`}
          options={options}
          value={filters[name] ?? ''}
          onChange={(value) => change(name, value)}
        />
      ))}
      {(
        [
          ['createdAfter', 'Started from'],
          ['createdBefore', 'Started before'],
        ] as const
      ).map(([name, label]) => (
        <label key={name} class="filter">
          {label}
          <input
            type="datetime-local"
            value={localInputValue(filters[name])}
            onChange={(event) => change(name, isoOfLocalInput(event.currentTarget.value))}
          />
        </label>
      ))}
    </form>
  );
}

/** ` for text "flaky", status failed`: what the list is narrowed by, for its empty message. */
export function filtersText(filters: TurnFilters): string {
  const parts = Object.entries(filters).map(([name, value]) =>
    name === 'text' ? `text “${value}”` : `${name} ${value}`,
  );
  return parts.length === 0 ? '' : ` for ${parts.join(', ')}`;
}
