import { daemonJson } from './daemon-requests';

/** What polling `/healthz` every `intervalMs` saw. */
export interface HealthPolling {
  /** Each answer's latency, ms. */
  latencies: number[];
  /** The most `runningTurns` any answer reported. */
  mostRunning: number;
  /** `runningTurns` of the latest answer. */
  running: number;
  /** Stops polling; resolves once the request in flight (if any) is answered. */
  stop(): Promise<void>;
}

/**
 * Polls `GET /healthz` every `intervalMs` (one request at a time: a slow answer delays the next
 * poll rather than piling requests up), recording each answer's latency and `runningTurns`.
 */
export function pollHealth(url: string, intervalMs = 50): HealthPolling {
  let stopped = false;
  const state: HealthPolling = {
    latencies: [],
    mostRunning: 0,
    running: 0,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
  const loop = (async () => {
    while (!stopped) {
      const start = performance.now();
      try {
        const body: { runningTurns: number } = await daemonJson(`${url}/healthz`);
        state.latencies.push(performance.now() - start);
        state.running = body.runningTurns;
        state.mostRunning = Math.max(state.mostRunning, body.runningTurns);
      } catch {
        // A refused poll is not a latency sample; the run's own checks report a dead daemon.
      }
      const wait = intervalMs - (performance.now() - start);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return state;
}
