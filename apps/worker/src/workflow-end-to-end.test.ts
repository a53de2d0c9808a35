import type { ControlPlane, WorkTurn } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import { type AgentEvent, type AgentRunResult, runAgentLoop } from '@switchyard/core';
import { testBackends } from '@switchyard/test-databases';
import {
  type FakeRequest,
  type FakeResponse,
  type FakeResponsesServer,
  startFakeResponsesServer,
  toolCallStep,
} from '@switchyard/testkit';
import { createBackgroundJobTools, createWorkflowTools } from '@switchyard/tools-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { barrier, fakeServerModel, outputsOf, promptOf } from './__fixtures__/scripted-model';
import { summarySchema, summaryTask } from './__fixtures__/summary-schema';
import { openTestControlPlane, type TestControlPlane } from './__fixtures__/test-control-plane';
import { startTaskTurnConsumer } from './task-turn-consumer';

const AGENT = 'ada';

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function toolOutputs(result: AgentRunResult): string[] {
  return (result.items as Array<{ type?: string; output?: unknown }>)
    .filter((item) => item.type === 'function_call_output')
    .map((item) => (typeof item.output === 'string' ? item.output : JSON.stringify(item.output)));
}

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: workflows and background jobs end to end`, () => {
    let store: TestControlPlane;
    let controlPlane: ControlPlane;
    let server: FakeResponsesServer;
    let consumer: { stop(): Promise<void> };
    const events: Array<{ turn: WorkTurn; event: AgentEvent }> = [];
    // Scripted answers, keyed by the start of the turn's prompt.
    const answers = new Map<string, (request: FakeRequest) => FakeResponse | Promise<FakeResponse>>();
    const model = () => fakeServerModel(server.baseURL, 'fake');

    /** A main turn's script: its first request calls the tool `name` with `args`, the next says `text`. */
    const callThenSay =
      (name: string, args: Record<string, unknown>, text: string) =>
      (request: FakeRequest): FakeResponse =>
        request.functionCallOutputs.length === 0 ? toolCallStep(name, args) : { text };

    function mainTurn(input: string): Promise<AgentRunResult> {
      const tools = [
        ...createWorkflowTools({ workflowService: controlPlane.workflows, agentId: AGENT }),
        ...createBackgroundJobTools({ backgroundJobService: controlPlane.backgroundJobs, agentId: AGENT }),
      ];
      return runAgentLoop({ model: model(), tools, input }).result();
    }

    beforeAll(async () => {
      server = await startFakeResponsesServer({
        script: async (request) => {
          const prompt = promptOf(request);
          for (const [prefix, answer] of answers) if (prompt.startsWith(prefix)) return answer(request);
          throw new Error(`no scripted answer for the prompt ${JSON.stringify(prompt)}`);
        },
      });
      store = await openTestControlPlane(
        { workTurns: { pollingIntervalSeconds: 0.5, retryLimit: 0, cancelCheckIntervalMs: 100 } },
        backend.create,
      );
      controlPlane = store.controlPlane;
      consumer = await startTaskTurnConsumer({
        controlPlane,
        agentId: AGENT,
        model: model(),
        concurrency: 3,
        onEvent: (turn, event) => events.push({ turn, event }),
      });
    });

    afterAll(async () => {
      await consumer?.stop();
      await store?.close();
      await server?.close().catch(() => {});
    });

    it('runs two parallel tasks and their dependant; an invalid submission is rejected, corrected and stored once', async () => {
      const together = barrier(2, 15_000);
      answers.set(
        'MAIN research',
        callThenSay(
          'workflow',
          {
            name: 'research',
            tasks: [
              summaryTask('left', 'TASK left: look left'),
              summaryTask('right', 'TASK right: look right'),
              summaryTask('merge', 'TASK merge: L={{tasks.left.result}} R={{tasks.right.result}}', [
                'left',
                'right',
              ]),
            ],
          },
          'The workflow is running.',
        ),
      );
      answers.set('TASK left', async (request) => {
        if (request.functionCallOutputs.length === 0) await together();
        return toolCallStep('submit_result', { summary: 'left findings' });
      });
      answers.set('TASK right', async (request) => {
        const outputs = outputsOf(request);
        if (outputs.length === 0) {
          await together();
          return toolCallStep('submit_result', { summary: 42, extra: true });
        }
        // Core refuses arguments outside the schema before submit_result runs.
        expect(outputs[0]).toMatch(/^Invalid arguments for tool 'submit_result'/);
        expect(outputs[0]).toContain('/summary: expected string');
        expect(outputs[0]).toContain('/extra: unexpected property');
        if (outputs.length === 1) {
          // Valid for the schema, but the control plane's own check refuses it (PostgreSQL cannot store NUL).
          return toolCallStep('submit_result', { summary: 'right\u0000findings' });
        }
        expect(outputs[1]).toMatch(/^Result rejected, nothing stored\. Fix each problem/);
        expect(outputs[1]).toContain('NUL character');
        return toolCallStep('submit_result', { summary: 'right findings' });
      });
      answers.set('TASK merge', (request) => {
        expect(promptOf(request)).toBe(
          'TASK merge: L={"summary":"left findings"} R={"summary":"right findings"}',
        );
        return toolCallStep('submit_result', { summary: 'both sides' });
      });

      const started = await mainTurn('MAIN research');
      expect(started.status).toBe('completed');
      const workflowId = /\(id ([0-9a-f-]{36})\)/.exec(toolOutputs(started)[0] ?? '')?.[1] ?? '';
      expect(workflowId).not.toBe('');
      const done = await until(
        () => controlPlane.workflows.showWorkflow({ agentId: AGENT, workflowId }),
        (workflow) => workflow?.status !== 'running',
      );
      expect(done?.tasks.map((task) => [task.id, task.status, task.error])).toEqual([
        ['left', 'completed', null],
        ['right', 'completed', null],
        ['merge', 'completed', null],
      ]);
      expect(done?.status).toBe('completed');
      expect(done?.tasks.map((task) => [task.id, task.result])).toEqual([
        ['left', { summary: 'left findings' }],
        ['right', { summary: 'right findings' }],
        ['merge', { summary: 'both sides' }],
      ]);
      const { rows } = await queryControlPlane<{ task_id: string; count: number }>(
        controlPlane,
        'SELECT task_id, count(*)::int AS count FROM switchyard.task_results WHERE workflow_id = $1 GROUP BY task_id ORDER BY task_id',
        [workflowId],
      );
      expect(rows).toEqual([
        { task_id: 'left', count: 1 },
        { task_id: 'merge', count: 1 },
        { task_id: 'right', count: 1 },
      ]);

      answers.set('MAIN show', callThenSay('show_workflow', { workflowId }, 'Done.'));
      const shown = await mainTurn(`MAIN show ${workflowId}`);
      expect(toolOutputs(shown)[0]).toBe(
        `Workflow research (id ${workflowId}): completed\n` +
          '- left: completed: {"summary":"left findings"}\n' +
          '- right: completed: {"summary":"right findings"}\n' +
          '- merge: completed: {"summary":"both sides"}',
      );
    });

    it('cancels mid-way: the running task turn is aborted, the pending one never starts, results stay', async () => {
      let slowStarted: () => void = () => {};
      const slowRequest = new Promise<void>((resolve) => {
        slowStarted = resolve;
      });
      answers.set(
        'MAIN slow',
        callThenSay(
          'workflow',
          {
            name: 'slow',
            tasks: [
              summaryTask('quick', 'TASK quick'),
              summaryTask('slow', 'TASK slow'),
              summaryTask('never', 'TASK never', ['slow']),
            ],
          },
          'Started.',
        ),
      );
      answers.set('TASK quick', () => toolCallStep('submit_result', { summary: 'quick one' }));
      answers.set('TASK slow', () => {
        slowStarted();
        return { delayMs: 60_000, text: 'too late' };
      });
      answers.set('TASK never', () => {
        throw new Error('a task whose dependency was cancelled must never start');
      });

      const started = await mainTurn('MAIN slow');
      const workflowId = /\(id ([0-9a-f-]{36})\)/.exec(toolOutputs(started)[0] ?? '')?.[1] ?? '';
      await slowRequest;
      await until(
        () => controlPlane.workflows.showWorkflow({ agentId: AGENT, workflowId }),
        (workflow) => workflow?.tasks[0]?.status === 'completed',
      );
      answers.set('MAIN cancel', callThenSay('cancel_workflow', { workflowId }, 'Cancelled.'));
      const cancelled = await mainTurn(`MAIN cancel ${workflowId}`);
      expect(toolOutputs(cancelled)[0]).toBe(
        `Cancelled:\nWorkflow slow (id ${workflowId}): cancelled\n` +
          '- quick: completed: {"summary":"quick one"}\n' +
          '- slow: cancelled: cancelled with the workflow\n' +
          '- never: cancelled: cancelled with the workflow',
      );
      const ended = await until(
        async () =>
          events.find(
            ({ turn, event }) =>
              turn.kind === 'workflow-task' && turn.taskId === 'slow' && event.type === 'turn-end',
          ),
        (found) => found !== undefined,
      );
      expect(ended?.event).toMatchObject({ type: 'turn-end', status: 'aborted' });
      // Give a wrongly dispatched dependant time to show up before checking it never did.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(server.requests.some((request) => promptOf(request).startsWith('TASK never'))).toBe(false);
      const final = await controlPlane.workflows.showWorkflow({ agentId: AGENT, workflowId });
      expect(final?.tasks.map((task) => task.status)).toEqual(['completed', 'cancelled', 'cancelled']);
    });

    it('starts a background job, checks it, and reads its stored result', async () => {
      answers.set(
        'MAIN job',
        callThenSay(
          'start_background_job',
          { prompt: 'JOB count the notes', resultSchema: summarySchema },
          'Started a job.',
        ),
      );
      answers.set('JOB count', () => toolCallStep('submit_result', { summary: '7 notes' }));
      const started = await mainTurn('MAIN job');
      const jobId = /Started background job ([0-9a-f-]{36})/.exec(toolOutputs(started)[0] ?? '')?.[1] ?? '';
      expect(jobId).not.toBe('');
      await until(
        () => controlPlane.backgroundJobs.checkBackgroundJob({ agentId: AGENT, jobId }),
        (job) => job?.status !== 'queued' && job?.status !== 'running',
      );
      answers.set('MAIN check', callThenSay('check_background_job', { jobId }, 'It counted 7 notes.'));
      const checked = await mainTurn(`MAIN check ${jobId}`);
      expect(toolOutputs(checked)[0]).toBe(
        `Background job ${jobId}: completed\nresult: {"summary":"7 notes"}`,
      );
      expect(checked.output).toBe('It counted 7 notes.');
    });
  });
}
