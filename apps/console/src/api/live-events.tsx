import { type ComponentChildren, createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { errorText, formatCount } from '../ui/format';
import { ApiError } from './client';
import { readEventStream, type StreamEvent, type StreamOverflow } from './event-stream';

/**
 * The state of a followed stream, shown as text: `live`, `reconnecting` after it broke, `refused` when
 * the daemon answered it with a 4xx (a wrong token, an unknown turn: asking again would not help).
 */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'refused';

/** What a listener of the live feed hears. */
export interface LiveListener {
  /** Each event of `/v1/events` (`turn`, `turn-event`, `approval`). */
  onEvent(event: StreamEvent): void;
  /**
   * The stream (re)opened: events may have been missed while it was down, so a view reloads what it
   * shows.
   */
  onOpen?(): void;
}

/** How long to wait before the next attempt after `failures` failed ones: 0.5 s doubling to 10 s. */
export function reconnectDelay(failures: number): number {
  return Math.min(10_000, 500 * 2 ** Math.max(0, failures - 1));
}

/**
 * What the state line says after the daemon ended a stream this page had fallen behind on: while it
 * reconnects, then once it is live again.
 */
export function overflowText(overflow: StreamOverflow, phase: 'reconnecting' | 'live'): string {
  const behind = `this page fell more than ${formatCount(overflow.limitBytes)} bytes behind the daemon's events`;
  return phase === 'reconnecting'
    ? `${behind}, so the daemon ended the stream; reloading`
    : `reloaded: ${behind}`;
}

/**
 * Follows the server-sent events at `path` until `signal` aborts: reconnects after a broken or ended
 * stream with a back-off (`reconnectDelay`), reports its state and the last error. A stream the
 * daemon ended with `overflow` (this page fell too far behind and missed events) is reopened at
 * once; `onOpen` then has each view reload what it shows.
 *
 * Contract: `onEvent` gets every event in order; `onState` is called on each change of state, with the
 * error that broke the stream (undefined once it is live again, or after an overflow the note that
 * the page reloaded); a 4xx answer ends it as `refused`; never rejects.
 */
export async function followEventStream(
  path: string,
  listener: LiveListener,
  signal: AbortSignal,
  onState: (state: StreamState, error?: string) => void,
): Promise<void> {
  let failures = 0;
  /** The overflow that ended the previous stream, until the next one opens. */
  let fellBehind: StreamOverflow | undefined;
  while (!signal.aborted) {
    let error: string | undefined;
    try {
      const overflow = await readEventStream(path, listener.onEvent, signal, () => {
        failures = 0;
        if (fellBehind === undefined) onState('live');
        else onState('live', overflowText(fellBehind, 'live'));
        fellBehind = undefined;
        listener.onOpen?.();
      });
      if (overflow !== undefined && !signal.aborted) {
        // Nothing is wrong with the daemon or the network: reopen now, and reload on open.
        fellBehind = overflow;
        onState('reconnecting', overflowText(overflow, 'reconnecting'));
        continue;
      }
    } catch (caught) {
      error = errorText(caught);
      if (caught instanceof ApiError && caught.status >= 400 && caught.status < 500) {
        onState('refused', error);
        return;
      }
    }
    if (signal.aborted) return;
    failures += 1;
    onState('reconnecting', error ?? 'the stream ended');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, reconnectDelay(failures));
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

interface LiveFeed {
  state: StreamState;
  error: string | undefined;
  listeners: Set<LiveListener>;
}

const LiveContext = createContext<LiveFeed | undefined>(undefined);

/**
 * One `/v1/events` stream for the whole signed-in page, shared by every view that follows it (the
 * turns list, the approvals and their badge), reconnecting after a break.
 */
export function LiveEventsProvider({ children }: { children: ComponentChildren }) {
  const listeners = useRef(new Set<LiveListener>()).current;
  const [status, setStatus] = useState<{ state: StreamState; error?: string }>({ state: 'connecting' });
  useEffect(() => {
    const controller = new AbortController();
    void followEventStream(
      '/v1/events',
      {
        onEvent: (event) => {
          for (const listener of listeners) listener.onEvent(event);
        },
        onOpen: () => {
          for (const listener of listeners) listener.onOpen?.();
        },
      },
      controller.signal,
      (state, error) => setStatus(error === undefined ? { state } : { state, error }),
    );
    return () => controller.abort();
  }, [listeners]);
  return (
    <LiveContext.Provider value={{ state: status.state, error: status.error, listeners }}>
      {children}
    </LiveContext.Provider>
  );
}

function useFeed(): LiveFeed {
  const feed = useContext(LiveContext);
  if (feed === undefined) throw new Error('live events outside LiveEventsProvider');
  return feed;
}

/** Calls `listener` (its latest version) for each live event while the component is mounted. */
export function useLiveEvents(listener: LiveListener): void {
  const feed = useFeed();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => {
    const relay: LiveListener = {
      onEvent: (event) => latest.current.onEvent(event),
      onOpen: () => latest.current.onOpen?.(),
    };
    feed.listeners.add(relay);
    return () => {
      feed.listeners.delete(relay);
    };
  }, [feed.listeners]);
}

/** The state of the shared live stream and the error that broke it, if it is down. */
export function useLiveState(): { state: StreamState; error: string | undefined } {
  const feed = useFeed();
  return { state: feed.state, error: feed.error };
}
