import { type Inputs, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from './format';
import { applyChange, LoadSequence, type ValueChange } from './load-sequence';

/** What `useResource` loaded, the error of its last load, and ways to load again or replace it. */
export interface Resource<T> {
  /** The last value loaded; undefined until the first load of the current `inputs` answers. */
  value?: T | undefined;
  /** The message of the last load's failure; undefined once a load succeeds. */
  error?: string | undefined;
  /** Loads again now (a live event said the value changed). */
  reload: () => void;
  /**
   * Shows a value at once (the answer of a request that changed it), or a change of the shown one;
   * keeps `error`.
   */
  set: (change: ValueChange<T>) => void;
  /**
   * A change the live stream told of: shown at once, and applied again on top of the answer of a
   * load under way, which may have read the value before it (the stream does not send it again).
   * Only for changes that come in the order they happened, as one stream's events do.
   */
  update: (change: ValueChange<T>) => void;
}

/** When `useResource` loads again by itself. */
export interface ResourceOptions<T> {
  /** Milliseconds after a value arrives to load again (while a workflow runs); undefined: stop. */
  repeatAfter?: (value: T) => number | undefined;
  /** Milliseconds after a failure to try again; undefined: the error stays shown. */
  retryAfter?: (error: unknown) => number | undefined;
}

/**
 * Loads a value of the daemon when the component mounts and whenever `inputs` change, and keeps the
 * error of the last load to show.
 *
 * Contract: `load` and `options` are read when `inputs` change (they may use only what `inputs`
 * name, plus setters and refs). A change of `inputs` forgets the value and aborts the signal given
 * to `load`: a late answer for old inputs is dropped, never shown. Only the latest load's answer is
 * shown (one a later load overtook is dropped), with every change `update` made since that load
 * began applied again on top (the answer may predate it: a live event read meanwhile is not sent
 * again). A failed load keeps the last
 * value and sets `error`; a later success clears it. Timers of `options` run until `inputs` change
 * or the component unmounts.
 *
 * @example
 * const tools = useResource(
 *   (signal) => unwrap(api.GET('/v1/tools', { params: { query: { agent } }, signal })),
 *   [agent],
 * );
 */
export function useResource<T>(
  load: (signal: AbortSignal) => Promise<T>,
  inputs: Inputs,
  options: ResourceOptions<T> = {},
): Resource<T> {
  const [state, setState] = useState<{ value?: T | undefined; error?: string | undefined }>({});
  const reloadNow = useRef(() => {});
  const sequenceRef = useRef<LoadSequence<T>>();
  sequenceRef.current ??= new LoadSequence<T>();
  const sequence = sequenceRef.current;

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      clearTimeout(timer);
      const loading = sequence.begin();
      let after: number | undefined;
      try {
        const answer = await load(controller.signal);
        if (controller.signal.aborted) return;
        // Overtaken by a later load: that one shows its answer and keeps the timers.
        const shown = sequence.answer(loading, answer);
        if (shown === undefined) return;
        setState({ value: shown.value });
        after = options.repeatAfter?.(shown.value);
      } catch (caught) {
        if (controller.signal.aborted || !sequence.fail(loading)) return;
        setState((current) => ({ value: current.value, error: errorText(caught) }));
        after = options.retryAfter?.(caught);
      }
      if (after !== undefined) timer = setTimeout(run, after);
    };
    setState({});
    reloadNow.current = run;
    run();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, inputs);

  return {
    ...state,
    reload: () => reloadNow.current(),
    set: (change) => setState((current) => ({ ...current, value: applyChange(current.value, change) })),
    update: (change) => {
      sequence.record(change);
      setState((current) => ({ ...current, value: applyChange(current.value, change) }));
    },
  };
}
