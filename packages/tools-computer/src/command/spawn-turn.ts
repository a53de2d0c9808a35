let spawnTurns: Promise<void> = Promise.resolve();

/**
 * Resolves when it is the caller's turn to spawn. `spawn` blocks the event loop until the child
 * has exec'd (Node forks, and forking copies the page tables: measured here 6 ms at 40 MB RSS,
 * 35 ms at 850 MB, as a daemon with PGlite has), so processes started together (commands, and the
 * sandboxes parked for the next ones) spawn one per event-loop turn instead of stacking those
 * pauses into one.
 */
export function spawnTurn(): Promise<void> {
  const turn = spawnTurns.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  spawnTurns = turn;
  return turn;
}
