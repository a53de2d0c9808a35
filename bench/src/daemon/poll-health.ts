import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { daemonJson } from './daemon-requests';
import type { ProbeReport } from './health-probe-process';

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

const PROBE_FILE = fileURLToPath(new URL('./health-probe-process.ts', import.meta.url));
const BENCH_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** Probes polling `/healthz` from a process of their own (`health-probe-process.ts`). */
export interface HealthProbes {
  /** Resolves once every URL answered the process once; rejects if the process exits first. */
  readonly started: Promise<void>;
  /** Stops them; resolves with each URL's report, in the order the URLs were given. */
  stop(): Promise<ProbeReport[]>;
}

/**
 * Polls `GET <url>/healthz` of each URL every 50 ms (as `pollHealth`) from a child process, so that
 * what the benchmark's own process does (the fake model's answers, the burst of POSTs) does not
 * delay the probe: its latency is the daemon's, as an orchestrator's probe sees it.
 */
export function probeHealthElsewhere(urls: readonly string[]): HealthProbes {
  const child = spawn(process.execPath, ['--import', 'tsx', PROBE_FILE, ...urls], {
    cwd: BENCH_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HEALTH_PROBE_PROCESS: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('started\n')) markStarted();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const startedOrFailed = Promise.race([
    started,
    exited.then((code) => {
      throw new Error(
        `the health probe process exited ${String(code)} at its start: ${stderr.slice(0, 500)}`,
      );
    }),
  ]);
  startedOrFailed.catch(() => {});
  return {
    started: startedOrFailed,
    stop: async () => {
      child.stdin?.end();
      const code = await exited;
      const line = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || line === '') {
        throw new Error(`the health probe process exited ${String(code)}: ${stderr.slice(0, 500)}`);
      }
      return JSON.parse(line) as ProbeReport[];
    },
  };
}
