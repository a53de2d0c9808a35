import type { ControlPlane } from '@switchyard/control-plane';
import { toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf } from '../__fixtures__/scripted-model';
import { summaryTask } from '../__fixtures__/summary-schema';
import { DaemonTestBed } from './__fixtures__/daemon-test-bed';
import { waitFor } from './__fixtures__/http-client';
import type { Daemon } from './start-daemon';
import { workTurnSource } from './work-source';

describe('startDaemon consuming a workflow (embedded PGlite, fake Responses server over HTTP)', () => {
  let bed: DaemonTestBed;
  let controlPlane: ControlPlane;
  let daemon: Daemon;

  beforeAll(async () => {
    bed = await DaemonTestBed.open({
      controlPlane: { workTurns: { pollingIntervalSeconds: 0.5 } },
      // Each task turn submits a summary naming its own prompt (with the results it depends on).
      script: (request) =>
        request.functionCallOutputs.length === 0
          ? toolCallStep('submit_result', { summary: `done: ${promptOf(request)}` })
          : { text: 'Submitted.' },
    });
    controlPlane = bed.controlPlane;
    daemon = await bed.startDaemon({
      agents: ['ada'],
      port: 0,
      scheduler: false,
      sources: [workTurnSource(controlPlane, ['ada'])],
    });
  }, 180_000);

  afterAll(async () => {
    await bed?.close();
  }, 180_000);

  it('runs each task as a task turn, feeds results to the dependant, and completes the workflow', async () => {
    const started = await controlPlane.workflows.startWorkflow({
      agentId: 'ada',
      spec: {
        name: 'two steps',
        tasks: [
          summaryTask('first', 'step one'),
          summaryTask('second', 'step two after {{tasks.first.result}}', ['first']),
        ],
      },
    });
    const workflow = await waitFor('the workflow to end', async () => {
      const record = await controlPlane.workflows.showWorkflow({ agentId: 'ada', workflowId: started.id });
      return record !== null && record.status !== 'running' ? record : undefined;
    });
    expect(workflow.status).toBe('completed');
    const [first, second] = workflow.tasks;
    expect(first).toMatchObject({ id: 'first', status: 'completed', attempts: 1 });
    expect(first?.result).toEqual({ summary: expect.stringContaining('step one') });
    // The dependant's prompt carried the first task's stored result.
    expect(second).toMatchObject({ id: 'second', status: 'completed', attempts: 1 });
    expect(JSON.stringify(second?.result)).toContain('step two after');
    expect(JSON.stringify(second?.result)).toContain('done: ');
    // The daemon ran them as task turns, visible through its turn records.
    const taskTurns = daemon.turns.list().filter((turn) => turn.source === 'task');
    expect(taskTurns.map((turn) => turn.sourceId).sort()).toEqual([
      `${started.id}/first`,
      `${started.id}/second`,
    ]);
    // An accepted submit_result ends its turn.
    expect(taskTurns.map((turn) => turn.status)).toEqual(['ended-by-tool', 'ended-by-tool']);
  });
});
