/** How long one synchronous stretch of work may hold the event loop before it yields. */
export const DEFAULT_SLICE_MS = 8;

/**
 * Cuts long work over untrusted input into short stretches: one worker process runs many agents
 * on one event loop, so a tool that scans a 10 MB file must let timers and I/O run while it does.
 * Callers check `due` every few thousand steps (reading the clock costs ~100 ns, too much for every
 * character) and `await yield()` when it is true.
 */
export class TimeSlice {
  private started = performance.now();

  constructor(private readonly sliceMs = DEFAULT_SLICE_MS) {}

  /** The current stretch has used its time. */
  get due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Lets the event loop run (timers, I/O) and starts a new stretch. */
  async yield(): Promise<void> {
    // setImmediate runs after the poll phase, so pending I/O callbacks and due timers run first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }

  /** Yields when the current stretch has used its time. */
  async check(): Promise<void> {
    if (this.due) await this.yield();
  }
}
