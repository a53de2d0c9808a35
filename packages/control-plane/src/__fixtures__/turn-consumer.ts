// A worker-daemon stand-in for the crash test: consumes one agent's turn requests from a
// PostgreSQL control plane, printing one JSON line per event. Run with `node --import tsx`.
//   turn-consumer.ts DATABASE_URL AGENT_ID HOLD_MS [FIRST_HOLD_MS]
// FIRST_HOLD_MS holds the first job longer, so a test can kill the process while it surely runs.
import { openControlPlane } from '../index';

const [databaseUrl, agentId, holdMs = '300', firstHoldMs = holdMs] = process.argv.slice(2);
let jobs = 0;
const print = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

const controlPlane = await openControlPlane({
  databaseUrl,
  agentId,
  environment: {},
  turnRequests: { expireInSeconds: 2, retryLimit: 5, retryDelaySeconds: 0, pollingIntervalSeconds: 0.5 },
  maintenanceIntervalSeconds: 1,
  onError: (error) => print({ event: 'error', message: String(error) }),
});
await controlPlane.turnRequests.work(async (request, context) => {
  print({ event: 'start', runId: request.runId, attempt: context.attempt, pid: process.pid });
  jobs += 1;
  await new Promise((resolve) => setTimeout(resolve, Number(jobs === 1 ? firstHoldMs : holdMs)));
  print({ event: 'done', runId: request.runId, pid: process.pid });
});
print({ event: 'ready', pid: process.pid });

process.once('SIGTERM', () => {
  controlPlane.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
