import { type FakeResponsesServer, startFakeResponsesServer } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeServerModel, promptOf } from '../__fixtures__/scripted-model';
import { DaemonTurns } from './daemon-turns';
import { type DrainSteps, drainDaemon } from './drain-daemon';
import type { WorkSource } from './work-source';

// The shutdown sequence over real turns (the `openai` SDK against the fake Responses server, no
// records): what finishes within the grace period, what is cancelled past it, and the order in
// which the daemon's parts are stopped.

describe('draining a daemon (fake Responses server over HTTP)', () => {
  let server: FakeResponsesServer;

  beforeAll(async () => {
    // `QUICK` answers after 200 ms, `SLOW` after a minute (unless the turn is aborted first).
    server = await startFakeResponsesServer({
      script: (request) =>
        promptOf(request) === 'SLOW' ? { delayMs: 60_000, text: 'late' } : { delayMs: 200, text: 'done' },
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  /** The steps over `turns`, noting each step's name as it runs. */
  function stepsOf(turns: DaemonTurns, graceMs: number, sources: WorkSource[] = []) {
    const done: string[] = [];
    const lines: string[] = [];
    const steps: DrainSteps = {
      setState: (state) => done.push(state),
      turns,
      stopScheduler: async () => {
        done.push('scheduler stopped');
      },
      sources,
      graceMs,
      stopHousekeeping: () => done.push('housekeeping stopped'),
      closeListeners: async () => {
        done.push(`listeners closed with ${turns.running} running`);
      },
      log: (line) => lines.push(line),
    };
    return { steps, done, lines };
  }

  it('lets a running turn finish within the grace period, then closes the listeners', async () => {
    const turns = new DaemonTurns({ model: fakeServerModel(server.baseURL) });
    const { done: finished } = await turns.start({ agentId: 'main', prompt: 'QUICK', source: 'api' });
    const stopped: string[] = [];
    // A source stops once its running unit is settled: here, after the turn ended.
    const source: WorkSource = {
      name: 'slow-to-stop',
      start: async () => {},
      stop: async () => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        stopped.push('source stopped');
      },
    };
    const { steps, done, lines } = stepsOf(turns, 30_000, [source]);
    const closeListeners = steps.closeListeners;
    steps.closeListeners = async () => {
      stopped.push('listeners closed');
      await closeListeners();
    };
    const report = await drainDaemon(steps);
    expect(report).toEqual({ finished: 1, cancelled: 0, released: 0 });
    expect((await finished).status).toBe('completed');
    expect(stopped).toEqual(['source stopped', 'listeners closed']);
    expect(done).toEqual([
      'draining',
      'scheduler stopped',
      'housekeeping stopped',
      'listeners closed with 0 running',
      'stopped',
    ]);
    expect(lines).toEqual([
      'switchyard serve: draining (1 running turn(s), grace 30000 ms)',
      'switchyard serve: stopped (1 finished, 0 cancelled)',
    ]);
  });

  it('cancels a turn still running when the grace period is over, and says so', async () => {
    const turns = new DaemonTurns({ model: fakeServerModel(server.baseURL) });
    const { done: cancelled } = await turns.start({ agentId: 'main', prompt: 'SLOW', source: 'api' });
    const { steps, done, lines } = stepsOf(turns, 100);
    const report = await drainDaemon(steps);
    expect(report).toEqual({ finished: 0, cancelled: 1, released: 0 });
    expect(await cancelled).toMatchObject({
      status: 'aborted',
      error: 'the worker shut down before the turn finished',
    });
    expect(done.at(-2)).toBe('listeners closed with 0 running');
    expect(lines).toContain('switchyard serve: grace period over, cancelling 1 turn(s)');
    expect(lines.at(-1)).toBe('switchyard serve: stopped (0 finished, 1 cancelled)');
  });
});
