import type { ControlPlane } from '@switchyard/control-plane';

/** What `stopWorkOnLockLost` does to the daemon. */
export interface LockLostActions {
  /** Whether the daemon takes work now: one already draining or stopped has nothing to stop. */
  serving(): boolean;
  /** Takes no new work from now on: new turns get 503 (`lock_lost`), `/healthz` answers 503 `lock-lost`. */
  refuseNewWork(): void;
  /** Stops what claims work (the scheduler, the queue consumers); resolves once they stopped. */
  stopClaiming(): Promise<void>;
  /** Receives the log lines. */
  log(line: string): void;
}

/**
 * Waits for the control plane to report its embedded database's lock lost (`controlPlane.lockLost`:
 * the lock's child process died, or the data directory was removed or replaced), and then stops the
 * daemon taking work and says so: another process may open the database from then on, and two
 * processes writing one PGlite directory corrupt it. Turns already running finish; the operator
 * stops the process (SIGTERM drains it as usual).
 *
 * Contract: at most once; nothing happens on PostgreSQL (`lockLost` never resolves there) nor when
 * the daemon is no longer serving (it only logs then).
 */
export function stopWorkOnLockLost(
  controlPlane: Pick<ControlPlane, 'lockLost'>,
  actions: LockLostActions,
): void {
  void controlPlane.lockLost.then(async (loss) => {
    if (!actions.serving()) {
      actions.log(
        `switchyard serve: the lock on the embedded database ${loss.dataDir} is gone: ${loss.message}`,
      );
      return;
    }
    actions.refuseNewWork();
    actions.log(
      `switchyard serve: LOST THE LOCK on the embedded database ${loss.dataDir}: ${loss.message}. ` +
        'This process takes no new work from now on (new turns get 503, /healthz answers 503 lock-lost, ' +
        'no more queued work is claimed); running turns finish. Stop it, make sure no other process has the ' +
        'database open, then start one again.',
    );
    try {
      await actions.stopClaiming();
    } catch (error) {
      actions.log(`switchyard serve: stopping the work sources failed: ${String(error)}`);
    }
  });
}
