import type { DaemonTurns } from './daemon-turns';
import type { DaemonStopReport } from './start-daemon';
import type { WorkSource } from './work-source';

/** What `drainDaemon` stops, in its order. */
export interface DrainSteps {
  /** Sets the daemon's state: `draining` first (no new work from the API), `stopped` once closed. */
  setState(state: 'draining' | 'stopped'): void;
  /** The daemon's turns. */
  turns: DaemonTurns;
  /** Stops the scheduler ticking (`controlPlane.scheduler.stop`). */
  stopScheduler(): Promise<void>;
  /** The work sources started: each stops taking units, waiting for its running ones. */
  sources: readonly WorkSource[];
  /** How long running turns may take to finish, in ms. */
  graceMs: number;
  /** Stops the heartbeat and the other timers. */
  stopHousekeeping(): void;
  /** Closes the listeners (the API's, the health port's). */
  closeListeners(): Promise<void>;
  /** Receives the log lines. */
  log(line: string): void;
}

/**
 * Stops a daemon: takes no new work, lets running turns finish within the grace period while the
 * sources stop, lets the turns waiting for approval go (another process continues each once
 * answered), cancels what still runs once the grace period is over (their queue units are retried),
 * then closes the listeners. Resolves with how many turns finished, were cancelled and were let go.
 *
 * Contract: the grace timer is held here and cleared before this resolves; every turn has ended
 * and is recorded (or let go) before the listeners close.
 */
export async function drainDaemon(steps: DrainSteps): Promise<DaemonStopReport> {
  const { turns, graceMs, log } = steps;
  steps.setState('draining');
  const runningAtStop = turns.running;
  log(`switchyard serve: draining (${runningAtStop} running turn(s), grace ${graceMs} ms)`);
  await steps.stopScheduler();
  // Stopping a source waits for its running units, so it runs alongside the grace period.
  const sourcesStopped = Promise.allSettled(steps.sources.map((source) => source.stop()));
  let cancelled = 0;
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'grace-over'>((resolve) => {
    timer = setTimeout(() => resolve('grace-over'), graceMs);
  });
  // Turns waiting for an approval are let go, not cancelled: another process continues each once
  // it is answered. Their calls under way get the grace period too.
  const graceEnded =
    (await Promise.race([turns.quiescent().then(() => 'quiet' as const), graceOver])) === 'grace-over';
  const released = await turns.releaseWaiting();
  if (released > 0)
    log(
      `switchyard serve: let ${released} turn(s) waiting for approval go: any worker continues them once answered`,
    );
  if (
    graceEnded ||
    (await Promise.race([turns.settled().then(() => 'settled' as const), graceOver])) === 'grace-over'
  ) {
    cancelled = turns.running;
    log(`switchyard serve: grace period over, cancelling ${cancelled} turn(s)`);
    turns.cancelAll(new Error('the worker shut down before the turn finished'));
  }
  clearTimeout(timer);
  await turns.settled();
  steps.stopHousekeeping();
  await sourcesStopped;
  await steps.closeListeners();
  steps.setState('stopped');
  const finished = Math.max(0, runningAtStop - cancelled - released);
  const letGo = released === 0 ? '' : `, ${released} let go waiting for approval`;
  log(`switchyard serve: stopped (${finished} finished, ${cancelled} cancelled${letGo})`);
  return { cancelled, finished, released };
}
