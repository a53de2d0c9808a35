/** A promise a test settles by hand: it holds a handler until the test has looked at the state. */
export interface Gate {
  /** Resolves once `open` was called. */
  readonly opened: Promise<void>;
  /** Lets everything awaiting `opened` go on (a plain function: pass it to `setTimeout` as it is). */
  readonly open: () => void;
}

/** A closed gate. */
export function createGate(): Gate {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
