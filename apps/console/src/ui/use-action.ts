import { useState } from 'preact/hooks';
import { errorText } from './format';

/** A request the operator sends from a page (cancel, allow, deny): whether it is under way, why it failed. */
export interface Action {
  /** Whether the last request is still under way (its buttons are disabled meanwhile). */
  busy: boolean;
  /** The message of the last request's failure; cleared when the next one starts. */
  error?: string | undefined;
  /** Follows `request`, then hands its answer to `onDone`. */
  run: <T>(request: Promise<T>, onDone: (answer: T) => void) => void;
}

/**
 * The state of a request the operator sends, such as `Cancel turn`.
 *
 * @example
 * const cancel = useAction();
 * cancel.run(unwrap(api.POST('/v1/turns/{id}/cancel', { params: { path: { id } } })), setTurn);
 * <ErrorAlert context="Could not cancel: " error={cancel.error} />
 */
export function useAction(): Action {
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  return {
    ...state,
    run: (request, onDone) => {
      setState({ busy: true });
      request.then(
        (answer) => {
          setState({ busy: false });
          onDone(answer);
        },
        (caught: unknown) => setState({ busy: false, error: errorText(caught) }),
      );
    },
  };
}
