// A worker-daemon stand-in for the crash test: consumes one agent's work turns from a PostgreSQL
// control plane, running task turns against a fake Responses server, printing one JSON line per
// event. Run with `node --import tsx`.
//   work-turn-worker.ts DATABASE_URL AGENT_ID RESPONSES_BASE_URL
import { openControlPlane } from '@switchyard/control-plane';
import { startTaskTurnConsumer } from '../task-turn-consumer';
import { fakeServerModel } from './scripted-model';

const [databaseUrl, agentId = 'crash-agent', baseURL] = process.argv.slice(2);
const print = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

const controlPlane = await openControlPlane({
  databaseUrl,
  environment: {},
  workTurns: { expireInSeconds: 2, retryLimit: 3, retryDelaySeconds: 0, pollingIntervalSeconds: 0.5 },
  maintenanceIntervalSeconds: 1,
  onError: (error) => print({ event: 'error', message: String(error) }),
});
const consumer = await startTaskTurnConsumer({
  controlPlane,
  agentId,
  model: fakeServerModel(baseURL ?? '', 'fake'),
  onEvent: (turn, event) => {
    if (event.type === 'turn-start' || event.type === 'turn-end') {
      print({
        event: event.type,
        task: turn.kind === 'workflow-task' ? turn.taskId : turn.jobId,
        pid: process.pid,
      });
    }
  },
});
print({ event: 'ready', pid: process.pid });

process.once('SIGTERM', () => {
  consumer
    .stop()
    .then(() => controlPlane.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
});
