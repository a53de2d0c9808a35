import type { StreamState } from '../api/live-events';

const WORDS: Record<StreamState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  refused: 'not following',
};

/**
 * A followed stream's state as words, with the error that broke it while it is not live, or once
 * live again after the daemon cut it off, the note that the page reloaded.
 */
export function StreamStateText({ state, error }: { state: StreamState; error?: string | undefined }) {
  return (
    <>
      {WORDS[state]}
      {error === undefined ? null : ` (${error})`}
    </>
  );
}
