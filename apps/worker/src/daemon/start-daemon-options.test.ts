import { describe, expect, it } from 'vitest';
import { WorkerConfigError } from '../config/worker-config-error';
import { type DaemonOptions, startDaemon } from './start-daemon';

// The options are checked before the daemon touches its control plane or model.
const base = { controlPlane: {} as never, model: {} as never, agents: ['ada'], port: 0 } as DaemonOptions;

describe('startDaemon options', () => {
  it.each([
    [{ host: '' }, 'serve.host'],
    [{ token: 'short' }, 'serve.token'],
    [{ token: 'a-token-of-sixteen-chars', readToken: 'a-token-of-sixteen-chars' }, 'serve.readToken'],
    [{ port: 70_000 }, 'serve.port'],
    [{ healthPort: -1 }, 'serve.healthPort'],
    [{ healthPort: 1.5 }, 'serve.healthPort'],
    [{ port: 8788, healthPort: 8788 }, 'serve.healthPort'],
    [{ allowedHosts: ['ok.example', 'bad host'] }, 'serve.allowedHosts[1]'],
    [{ agents: [] }, 'serve.agents'],
    [{ agents: ['ada', 'a/b'] }, 'serve.agents[1]'],
    [{ heartbeatMs: 0 }, 'serve.heartbeatMs'],
    [{ staleTurnMs: 1_000, heartbeatMs: 2_000 }, 'serve.staleTurnMs'],
    [{ console: 'off' as never }, 'serve.console'],
    [{ maxEventStreamBytes: 1024 }, 'serve.maxEventStreamBytes'],
    [{ maxEventStreamBytes: 1.5e6 + 0.5 }, 'serve.maxEventStreamBytes'],
    [{ maxRetainedTurnBytes: -1 }, 'serve.maxRetainedTurnBytes'],
  ] as Array<
    [Partial<DaemonOptions>, string]
  >)('throws WorkerConfigError naming %j as %s', async (bad, field) => {
    const error = await startDaemon({ ...base, ...bad }).catch((thrown: unknown) => thrown);
    expect(WorkerConfigError.isInstance(error)).toBe(true);
    expect((error as WorkerConfigError).field).toBe(field);
    expect((error as Error).message).toContain(`${field}: `);
  });
});
