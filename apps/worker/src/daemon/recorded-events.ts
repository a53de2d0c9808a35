import type { DaemonTurnEvent } from './daemon-turn-types';

/**
 * A turn's stored events in today's vocabulary. Logs recorded before `tool-call-end` had one closed
 * set of outcomes hold `outcome: 'completed'` with `isError: true` for a tool's own error result, and
 * `outcome: 'error'` for a tool that threw: both are `tool-error` now, so a reader of the API sees one
 * vocabulary whatever the age of the turn (the stored rows are left as they are: history is not
 * rewritten). Everything else passes through unchanged.
 *
 * Contract: never throws on malformed entries; returns a new array, sharing unchanged events.
 */
export function upgradeRecordedEvents(events: readonly unknown[]): DaemonTurnEvent[] {
  return events.map((event) => {
    const stored = event as { type?: unknown; outcome?: unknown; isError?: unknown } | null;
    if (typeof stored !== 'object' || stored === null || stored.type !== 'tool-call-end') {
      return event as DaemonTurnEvent;
    }
    const legacy = stored.outcome === 'error' || (stored.outcome === 'completed' && stored.isError === true);
    return (legacy ? { ...stored, outcome: 'tool-error' } : stored) as DaemonTurnEvent;
  });
}
