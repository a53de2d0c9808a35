import type { AgentEvent, TurnEndEvent } from '@switchyard/core';

// JSON.stringify escapes the C0 controls but leaves DEL and the C1 controls as they are, and some
// terminals act on U+009B (CSI) and U+009D (OSC): written as escapes, the line is the same JSON.
const UNESCAPED_CONTROL = /[\u007f-\u009f]/g;

/**
 * One event as a JSON line (`--json`): errors become `{ name, message }`, since `Error` serializes to
 * `{}`. No character a terminal acts on is written as it is: the line parses to the same event.
 */
export function eventToJsonLine(event: AgentEvent): string {
  const json = JSON.stringify(event, (_key, value: unknown) =>
    value instanceof Error ? { name: value.name, message: value.message } : value,
  );
  return `${json.replace(UNESCAPED_CONTROL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/**
 * The `turn-end` line of `run --json`: the event with the turn's final text (`output`, the run
 * result's), so a script reading the stream needs no other source for the answer.
 */
export function turnEndJsonLine(event: TurnEndEvent, output: string): string {
  return eventToJsonLine({ ...event, output } as AgentEvent);
}
