// Formatting with the browser's own `Intl`: no date or number library in the bundle.

const numbers = new Intl.NumberFormat();
const times = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** `12,430`, in the operator's locale. */
export function formatCount(value: number): string {
  return numbers.format(value);
}

/** `1.2 s`, `340 ms`, `3 min 5 s`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1_000) return `${Math.max(0, Math.round(milliseconds))} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1_000).toFixed(1)} s`;
  const seconds = Math.round(milliseconds / 1_000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** A moment in the operator's time zone and locale. */
export function formatTime(iso: string): string {
  return times.format(new Date(iso));
}

/** How long a turn took, or has run so far (against `now`) while it has no end. */
export function turnDuration(turn: { createdAt: string; endedAt?: string }, now: number): number {
  const end = turn.endedAt === undefined ? now : Date.parse(turn.endedAt);
  return end - Date.parse(turn.createdAt);
}

/** A JSON value as indented text for a `<pre>`. */
export function formatJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** An error caught anywhere, as the message to show. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
