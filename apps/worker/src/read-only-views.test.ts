import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliWorkspace } from './__fixtures__/cli-workspace';

describe('switchyard schedules list, workflows show and turns (read-only views)', () => {
  let workspace: CliWorkspace;
  let workflowId: string;
  let poisonedId: string;
  const usage = {
    inputTokens: 90,
    cachedInputTokens: 0,
    outputTokens: 30,
    reasoningTokens: 0,
    totalTokens: 120,
  };

  beforeAll(async () => {
    workspace = await CliWorkspace.create('views');
    // Written by one process, then read by the CLI in another: PGlite is single-process.
    await workspace.seed(
      async (controlPlane) => {
        await controlPlane.schedules.createSchedule({
          agentId: 'ada',
          name: 'morning-digest',
          prompt: 'Summarise the overnight mail.',
          cron: '0 9 * * 1-5',
          timeZone: 'Europe/Berlin',
        });
        const workflow = await controlPlane.work.createWorkflow({
          agentId: 'ada',
          name: 'compare-releases',
          definition: { tasks: ['a', 'b'] },
          tasks: [
            { taskId: 'a', input: { prompt: 'read A' } },
            { taskId: 'b', input: { prompt: 'read B' } },
          ],
          idempotencyKey: 'views-test',
        });
        workflowId = workflow.id;
        await controlPlane.work.storeTaskResult({ workflowId, taskId: 'a', result: { version: '1.2.0' } });
        for (const [id, prompt] of [
          ['turn_views_1', 'What changed overnight?'],
          ['turn_views_2', '\n  Water the   plants\nin the greenhouse, then the herbs'],
        ] as const) {
          await controlPlane.turns.recordStart({
            id,
            agentId: 'ada',
            source: 'api',
            prompt,
            workerId: 'worker_views',
          });
        }
        await controlPlane.turns.recordEnd({
          id: 'turn_views_1',
          status: 'completed',
          output: 'Two releases shipped.',
          usage,
          iterations: 2,
          events: [{ type: 'turn-start' }, { type: 'turn-end', status: 'completed' }],
        });
        // A task whose worker dies on every attempt: handed back once, then parked as failed.
        const recorded: string[] = [];
        await controlPlane.workTurns.work(
          async (turn, { attempt, signal }) => {
            if (turn.kind !== 'workflow-task') return;
            const id = `turn_poison_${attempt}`;
            await controlPlane.turns.recordStart({
              id,
              agentId: 'eve',
              source: 'task',
              sourceId: `${turn.workflowId}/${turn.taskId}`,
              attempt,
              prompt: turn.prompt,
              workerId: 'worker_gone',
            });
            recorded.push(id);
            await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          },
          { agentId: 'eve' },
        );
        const poisoned = await controlPlane.workflows.startWorkflow({
          agentId: 'eve',
          spec: {
            name: 'poisoned',
            tasks: [
              {
                id: 'poison',
                prompt: 'crash the worker',
                resultSchema: {
                  type: 'object',
                  properties: { ok: { type: 'boolean' } },
                  required: ['ok'],
                  additionalProperties: false,
                },
              },
            ],
          },
        });
        poisonedId = poisoned.id;
        for (const attempt of [1, 2]) {
          for (let waited = 0; !recorded.includes(`turn_poison_${attempt}`); waited += 50) {
            if (waited > 30_000) throw new Error(`attempt ${attempt} of the poisoned task never started`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          await controlPlane.turns.markInterrupted({ staleAfterMs: 0 });
        }
        await controlPlane.turns.recordEnd({
          id: 'turn_views_2',
          status: 'aborted',
          output: '',
          usage,
          iterations: 1,
          error: 'the worker shut down before the turn finished',
        });
      },
      { workTurns: { retryLimit: 1, pollingIntervalSeconds: 0.5, cancelCheckIntervalMs: 50 } },
    );
  }, 180_000);

  afterAll(() => workspace?.remove());

  it("lists an agent's schedules", async () => {
    const stdout = await workspace.stdoutOf(['schedules', 'list', '--agent', 'ada']);
    expect(stdout).toMatch(
      /^1 active schedule of agent ada:\n- morning-digest \([0-9a-f-]{36}\) active: cron "0 9 \* \* 1-5" in Europe\/Berlin\n {2}next: \d{4}-.*T09:00:00\+0[12]:00, /,
    );
    expect(stdout).toContain('  prompt: "Summarise the overnight mail."');
    const other = await workspace.stdoutOf(['schedules', 'list', '--agent', 'bob']);
    expect(other).toBe('Agent bob has no active schedules.\n');
  });

  it("shows a workflow's tasks and stored results, and refuses an unknown id", async () => {
    const stdout = await workspace.stdoutOf(['workflows', 'show', workflowId]);
    expect(stdout).toMatch(
      new RegExp(`^Workflow compare-releases \\(${workflowId}\\) of agent ada: running, created \\d{4}-`),
    );
    expect(stdout).toContain(
      '2 tasks, 1 completed:\n- a: completed\n  result: {"version":"1.2.0"}\n- b: pending\n',
    );
    const unknown = await workspace.run(['workflows', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no workflow 00000000-0000-4000-8000-000000000000');
    const parked = await workspace.stdoutOf(['workflows', 'show', poisonedId]);
    expect(parked).toContain(
      '1 task, 0 completed:\n- poison: failed (2 attempts)\n  error: the worker running attempt 2 stopped (its heartbeat went stale), and that was the last of the 2 attempts allowed (retryLimit 1)\n',
    );
    const notAnId = await workspace.run(['workflows', 'show', 'nope']);
    expect(notAnId.code).toBe(1);
    expect(notAnId.stderr).toContain('"nope" is not a workflow id');
  });

  it("lists an agent's workflows with their task counts", async () => {
    const stdout = await workspace.stdoutOf(['workflows', 'list', '--agent', 'ada']);
    expect(stdout).toMatch(/^1 workflow of agent ada, newest first:\n/);
    expect(stdout).toContain(`- compare-releases (${workflowId}) `);
    expect(stdout).toMatch(/tasks: .*1 completed/);
    const other = await workspace.stdoutOf(['workflows', 'list', '--agent', 'bob']);
    expect(other).toBe('Agent bob has no workflows.\n');
  });

  it("lists an agent's recorded turns and shows one, refusing an unknown id", async () => {
    const list = await workspace.stdoutOf(['turns', 'list', '--agent', 'ada']);
    expect(list).toMatch(
      /^2 turns of agent ada, newest first:\n- turn_views_2 aborted \(api\), started \d{4}-.*, ended \d{4}-.*\n {2}title: "Water the plants"\n- turn_views_1 completed/,
    );
    const show = await workspace.stdoutOf(['turns', 'show', 'turn_views_1']);
    expect(show).toMatch(/^Turn turn_views_1 completed \(api\)/);
    expect(show).toContain(
      'agent: ada, worker: worker_views\n2 model requests, 120 tokens (90 in, 30 out)\nevents: 2 recorded\nprompt: "What changed overnight?"\noutput:\nTwo releases shipped.\n',
    );
    const aborted = await workspace.stdoutOf(['turns', 'show', 'turn_views_2']);
    expect(aborted).toContain('error: the worker shut down before the turn finished\n');
    const parked = await workspace.stdoutOf(['turns', 'show', 'turn_poison_2']);
    expect(parked).toMatch(/^Turn turn_poison_2 interrupted \(task [0-9a-f-]{36}\/poison\)/);
    expect(parked).toContain(
      `error: the worker running this turn stopped before the turn ended; task ${poisonedId}/poison failed: the worker running attempt 2 stopped`,
    );
    const unknown = await workspace.run(['turns', 'show', 'turn_nope']);
    expect(unknown).toMatchObject({ code: 1, stderr: 'switchyard: turns show: no turn turn_nope\n' });
    expect((await workspace.run(['turns', 'show', 'a b'])).stderr).toContain('"a b" is not a turn id');
    expect((await workspace.run(['turns', 'delete', 'x'])).code).toBe(2);
  });
});
