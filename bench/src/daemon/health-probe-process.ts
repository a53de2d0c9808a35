// A liveness probe in a process of its own, as an orchestrator's probe is (`node --import tsx
// health-probe-process.ts URL...` with HEALTH_PROBE_PROCESS set): polls `GET <url>/healthz` of each
// URL every 50 ms, one request at a time per URL, until its standard input ends. Prints `started` once
// each URL answered, and at the end one JSON line: each URL's latencies and the most `runningTurns` an answer reported. In the benchmark's own
// process the probe would wait behind the fake model's and the burst's work there, and its latency
// would not be the daemon's.
import { pollHealth } from './poll-health';

/** What the probe process prints for each URL, in the order given. */
export interface ProbeReport {
  latencies: number[];
  mostRunning: number;
}

if (process.env.HEALTH_PROBE_PROCESS === '1') {
  const pollers = process.argv.slice(2).map((url) => pollHealth(url));
  // Says so once every URL answered once: the probes run from then on.
  const answered = setInterval(() => {
    if (pollers.every((poller) => poller.latencies.length > 0)) {
      clearInterval(answered);
      process.stdout.write('started\n');
    }
  }, 10);
  process.stdin.resume();
  process.stdin.once('end', async () => {
    await Promise.all(pollers.map((poller) => poller.stop()));
    const reports: ProbeReport[] = pollers.map(({ latencies, mostRunning }) => ({ latencies, mostRunning }));
    process.stdout.write(`${JSON.stringify(reports)}\n`, () => process.exit(0));
  });
}
