import type { ControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import { postgresTitle, postgresUrl } from '@switchyard/test-databases';
import { type FakeResponse, type FakeResponsesServer, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../__fixtures__/run-cli';
import { promptOf } from '../__fixtures__/scripted-model';
import { summaryDiamond, summaryTask } from '../__fixtures__/summary-schema';
import { requestJson, waitFor } from './__fixtures__/http-client';
import { ServeFolder } from './__fixtures__/serve-folder';
import type { ServeProcess } from './__fixtures__/serve-process';

// Real `switchyard serve` processes with the default settings except short timings. The queues'
// expiry is left at its default (the default turn limit plus a minute: 660 s), so a unit that comes
// back within seconds came back through the hand-back of its interrupted turn, not through expiry.
const TIMINGS = { heartbeatMs: 200, staleTurnMs: 1_500, pollSeconds: 0.5, tickMs: 200, graceMs: 500 };
/**
 * A generous bound on "re-run within staleTurnMs + one poll + the turn's own time" (about 2 to 3 s
 * here) for a loaded 2-core machine; still 20 times shorter than the expiry it proves was not needed.
 */
const RECOVERY_BOUND_MS = 30_000;
const AGENT = 'fleet';
const HANG: FakeResponse = { delayMs: 120_000, text: 'never answered: the process is killed first' };

/** The background job and the one-shot schedule (due in 1.5 s) a process is to be holding when it dies. */
async function startJobAndFire(controlPlane: ControlPlane) {
  const job = await controlPlane.backgroundJobs.startBackgroundJob({ agentId: AGENT, prompt: 'JOB victim' });
  const schedule = await controlPlane.schedules.createSchedule({
    agentId: AGENT,
    name: 'victim',
    prompt: 'FIRE victim',
    runAt: new Date(Date.now() + 1_500).toISOString(),
  });
  return { job, schedule };
}

/**
 * The fake model of these tests. A task turn submits `{ summary: '<prompt> #<n>' }` (n counts the
 * turns of that prompt), any other turn answers with text. The first turn of a prompt in `held` gets
 * that answer instead (held for a long time: the turn a process is killed in).
 */
class FakeModel {
  server: FakeResponsesServer | undefined;
  /** When each turn of each prompt made its first model request. */
  readonly turnStarts = new Map<string, number[]>();
  readonly held = new Map<string, FakeResponse>();

  /** Starts its server for `folder`'s processes (`folder.remove()` closes it). */
  async start(folder: ServeFolder): Promise<string> {
    this.server = await folder.startFakeModel({
      script: (request) => {
        // A follow-up request of a turn (after a tool result) just ends it.
        if (request.functionCallOutputs.length > 0) return { text: 'done' };
        const prompt = promptOf(request);
        const starts = this.turnStarts.get(prompt) ?? [];
        starts.push(Date.now());
        this.turnStarts.set(prompt, starts);
        const held = this.held.get(prompt);
        if (starts.length === 1 && held !== undefined) return held;
        if (prompt.startsWith('TASK ')) {
          return toolCallStep('submit_result', { summary: `${prompt} #${starts.length}` });
        }
        return { text: `${prompt} answered by turn ${starts.length}` };
      },
    });
    return this.server.baseURL;
  }

  turns(prompt: string): number {
    return this.turnStarts.get(prompt)?.length ?? 0;
  }
}

/** The configuration of these tests' processes, on the folder's database. */
function writeConfig(folder: ServeFolder): Promise<string> {
  return folder.writeConfig({ categories: {}, serve: { agents: [AGENT], port: 0, ...TIMINGS } });
}

/** The id a serve process's turn records carry (it logs it at start). */
function workerIdOf(serve: ServeProcess): string {
  const id = /switchyard serve: worker (worker_\S+)/.exec(serve.log)?.[1];
  if (id === undefined) throw new Error(`no worker id in the log:\n${serve.log}`);
  return id;
}

const VICTIMS = ['TASK victim', 'JOB victim', 'FIRE victim'];

describe.runIf(postgresUrl !== null)(`${postgresTitle}: serve processes recover a dead one's work`, () => {
  let folder: ServeFolder;
  let controlPlane: ControlPlane | undefined;
  const model = new FakeModel();

  beforeAll(async () => {
    folder = await ServeFolder.create('recovery-pg', 'postgres');
    await model.start(folder);
  });

  afterAll(async () => {
    // A process left stopped by a failed test must be running again to take its SIGTERM.
    for (const serve of folder?.processes ?? []) serve.child.kill('SIGCONT');
    await controlPlane?.close();
    await folder?.remove(10_000);
  });

  it('re-runs a SIGKILLed process’s task, job and schedule fire at once, and a resumed SIGSTOPped one stores nothing twice', async () => {
    const config = await writeConfig(folder);
    const environment = { OPENAI_BASE_URL: model.server?.baseURL ?? '', OPENAI_API_KEY: 'test' };
    const start = () => folder.start(['--config', config], environment);

    // One process alone takes the three victims: a task, a job and a schedule fire, each held.
    const doomed = start();
    await doomed.ready;
    controlPlane = await folder.openControlPlane();
    for (const prompt of VICTIMS) model.held.set(prompt, HANG);
    const workflow = await controlPlane.workflows.startWorkflow({
      agentId: AGENT,
      spec: {
        name: 'fleet',
        tasks: summaryDiamond(
          ['victim', 'TASK victim'],
          ['left', 'TASK left'],
          ['right', 'TASK right'],
          ['merge', 'TASK merge'],
        ),
      },
    });
    const { job, schedule } = await startJobAndFire(controlPlane);
    await waitFor('the first process to run all three', () =>
      VICTIMS.every((prompt) => model.turns(prompt) === 1) ? true : undefined,
    );

    // Two more processes join; then the first dies mid-turn, three times over.
    const survivors = [start(), start()];
    await Promise.all(survivors.map((serve) => serve.ready));
    const doomedWorker = workerIdOf(doomed);
    doomed.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await doomed.exited).toBe('SIGKILL');

    for (const prompt of VICTIMS) {
      await waitFor(`${prompt} to run again`, () => (model.turns(prompt) >= 2 ? true : undefined), 90_000);
    }
    const rerunAfterMs = VICTIMS.map(
      (prompt) => (model.turnStarts.get(prompt)?.[1] ?? Number.NaN) - killedAt,
    );
    console.info(
      `re-run after the SIGKILL (ms): ${VICTIMS.map((p, i) => `${p} ${rerunAfterMs[i]}`).join(', ')}`,
    );
    for (const elapsed of rerunAfterMs) expect(elapsed).toBeLessThan(RECOVERY_BOUND_MS);

    const cp = controlPlane;
    const runs = async () =>
      (
        await queryControlPlane<{ id: string; status: string; attempts: number }>(
          cp,
          'SELECT id, status, attempts FROM switchyard.schedule_runs WHERE schedule_id = $1',
          [schedule.id],
        )
      ).rows;
    await waitFor(
      'the workflow, the job and the fire to finish',
      async () => {
        const shown = await cp.workflows.showWorkflow({ agentId: AGENT, workflowId: workflow.id });
        const checked = await cp.backgroundJobs.checkBackgroundJob({ agentId: AGENT, jobId: job.id });
        const [run] = await runs();
        return shown?.status !== 'running' &&
          (checked?.status === 'completed' || checked?.status === 'failed') &&
          run?.status === 'completed'
          ? true
          : undefined;
      },
      90_000,
    );

    // The workflow completed, every result stored once, the victim's by its second attempt.
    const shown = await cp.workflows.showWorkflow({ agentId: AGENT, workflowId: workflow.id });
    expect(shown?.status).toBe('completed');
    expect(shown?.tasks.map((task) => [task.id, task.status, task.attempts, task.result])).toEqual([
      ['victim', 'completed', 2, { summary: 'TASK victim #2' }],
      ['left', 'completed', 1, { summary: 'TASK left #1' }],
      ['right', 'completed', 1, { summary: 'TASK right #1' }],
      ['merge', 'completed', 1, { summary: 'TASK merge #1' }],
    ]);
    const { rows: results } = await queryControlPlane<{ count: number }>(
      cp,
      'SELECT count(*)::int AS count FROM switchyard.task_results WHERE workflow_id = $1',
      [workflow.id],
    );
    expect(results[0]?.count).toBe(4);
    expect(await cp.backgroundJobs.checkBackgroundJob({ agentId: AGENT, jobId: job.id })).toMatchObject({
      status: 'completed',
      result: { text: 'JOB victim answered by turn 2' },
    });
    const [run] = await runs();
    expect(await runs()).toEqual([{ id: run?.id, status: 'completed', attempts: 2 }]);
    // Each victim ran twice (the killed turn and its re-run), everything else once.
    for (const prompt of VICTIMS) expect(model.turns(prompt)).toBe(2);
    for (const prompt of ['TASK left', 'TASK right', 'TASK merge']) expect(model.turns(prompt)).toBe(1);

    // The dead process's turns are on record as interrupted, each saying where its unit went; the
    // survivors logged each recovery once (unit, attempt, previous worker).
    const doomedTurns = (await cp.turns.list({ agentId: AGENT })).filter(
      (turn) => turn.workerId === doomedWorker,
    );
    expect(doomedTurns.map((turn) => turn.sourceId).sort()).toEqual(
      [`${workflow.id}/victim`, job.id, run?.id].sort(),
    );
    for (const turn of doomedTurns) {
      // (Had a heartbeat of the doomed process been late enough on a loaded machine, its task and job
      // turns would have been handed back before the kill and then ended `aborted` themselves.)
      if (turn.status === 'interrupted') {
        expect(turn.error).toMatch(/handed back to its queue: attempt 2 starts at once on any live worker$/);
      } else {
        expect(turn.status).toBe('aborted');
      }
    }
    expect(doomedTurns.filter((turn) => turn.status === 'interrupted').length).toBeGreaterThanOrEqual(1);
    const logs = survivors.map((serve) => serve.log).join('\n');
    for (const [unit, id] of [
      ['workflow-task', `${workflow.id}/victim`],
      ['background-job', job.id],
      ['schedule-run', run?.id],
    ]) {
      const line = new RegExp(
        `switchyard serve: recovery: ${unit} ${id}, attempt 1 \\(turn turn_\\S+, previous worker ${doomedWorker}\\): requeued: `,
        'g',
      );
      expect(logs.match(line)).toHaveLength(1);
    }
    const show = await runCli(['workflows', 'show', workflow.id, '--config', config], { cwd: folder.path });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      '- victim: completed (2 attempts)\n  result: {"summary":"TASK victim #2"}\n',
    );

    // A process that is only slow: stopped past staleTurnMs while its task's model request is out,
    // then resumed once another process re-ran the task. Its late answer stores nothing.
    model.held.set('TASK sleeper', {
      delayMs: 1_000,
      ...toolCallStep('submit_result', { summary: 'from the stopped process' }),
    });
    const slow = await cp.workflows.startWorkflow({
      agentId: AGENT,
      spec: { name: 'slow', tasks: [summaryTask('sleeper', 'TASK sleeper')] },
    });
    await waitFor('the sleeper to reach the model', () =>
      model.turns('TASK sleeper') === 1 ? true : undefined,
    );
    const first = await waitFor('the sleeper’s turn record', async () =>
      (await cp.turns.list({ agentId: AGENT, status: 'running' })).find(
        (turn) => turn.sourceId === `${slow.id}/sleeper`,
      ),
    );
    const sleepy = survivors.find((serve) => workerIdOf(serve) === first.workerId);
    const other = survivors.find((serve) => serve !== sleepy);
    if (sleepy === undefined || other === undefined) throw new Error('the sleeper runs in no survivor');
    sleepy.child.kill('SIGSTOP');
    try {
      await waitFor(
        'another process to store the sleeper’s result',
        async () =>
          (await cp.workflows.showWorkflow({ agentId: AGENT, workflowId: slow.id }))?.status === 'completed'
            ? true
            : undefined,
        60_000,
      );
    } finally {
      sleepy.child.kill('SIGCONT');
    }
    // Resumed, it ends its turn: its record takes its real end in place of `interrupted`.
    const ended = await waitFor(
      'the resumed process to end its turn',
      async () => {
        const record = await cp.turns.get(first.id);
        return record?.status === 'running' || record?.status === 'interrupted' ? undefined : record;
      },
      60_000,
    );
    // Its journal refuses the late response (the turn is not its to go on with), so it stops there;
    // a heartbeat that told it first aborts it.
    expect(['aborted', 'failed']).toContain(ended.status);
    if (ended.status === 'failed') {
      expect(ended.error).toMatch(/journal could not be written: .*no longer running on worker/);
    }
    const slowShown = await cp.workflows.showWorkflow({ agentId: AGENT, workflowId: slow.id });
    expect(slowShown?.tasks[0]).toMatchObject({
      status: 'completed',
      attempts: 2,
      result: { summary: 'TASK sleeper #2' },
    });
    const { rows: slowResults } = await queryControlPlane<{ result: unknown }>(
      cp,
      'SELECT result FROM switchyard.task_results WHERE workflow_id = $1',
      [slow.id],
    );
    expect(slowResults).toEqual([{ result: { summary: 'TASK sleeper #2' } }]);
    const second = (await cp.turns.list({ agentId: AGENT })).find(
      (turn) => turn.sourceId === `${slow.id}/sleeper` && turn.attempt === 2,
    );
    expect(second?.workerId).toBe(workerIdOf(other));
    expect(second?.status).toBe('ended-by-tool');

    const codes = await Promise.all(survivors.map((serve) => serve.terminate()));
    expect(codes).toEqual([0, 0]);
  });
});

describe('switchyard serve on embedded PGlite: a restart gets the killed process’s work back', () => {
  let folder: ServeFolder;
  const model = new FakeModel();

  beforeAll(async () => {
    folder = await ServeFolder.create('recovery-pglite', 'pglite');
    await model.start(folder);
  }, 180_000);

  afterAll(() => folder?.remove(10_000), 180_000);

  it('re-runs the task, job and schedule fire the killed process was running, each result stored once', async () => {
    // Set up first, then hand the directory over: PGlite is one process's database.
    let controlPlane = await folder.openControlPlane();
    const workflow = await controlPlane.workflows.startWorkflow({
      agentId: AGENT,
      spec: {
        name: 'restart',
        tasks: [summaryTask('victim', 'TASK victim'), summaryTask('after', 'TASK after', ['victim'])],
      },
    });
    // The fire is due before the process is up: a slot missed while no worker ran fires when one starts.
    const { job, schedule } = await startJobAndFire(controlPlane);
    await controlPlane.close();

    for (const prompt of VICTIMS) model.held.set(prompt, HANG);
    const config = await writeConfig(folder);
    const environment = { OPENAI_BASE_URL: model.server?.baseURL ?? '', OPENAI_API_KEY: 'test' };
    const killed = folder.start(['--config', config], environment);
    await killed.ready;
    await waitFor('the process to run all three', () =>
      VICTIMS.every((prompt) => model.turns(prompt) === 1) ? true : undefined,
    );
    const killedWorker = workerIdOf(killed);
    killed.child.kill('SIGKILL');
    expect(await killed.exited).toBe('SIGKILL');

    const restarted = folder.start(['--config', config], environment);
    const url = await restarted.ready;
    const readyAt = Date.now();
    for (const prompt of [...VICTIMS, 'TASK after']) {
      await waitFor(
        `${prompt} to run`,
        () => (model.turns(prompt) >= (prompt === 'TASK after' ? 1 : 2) ? true : undefined),
        90_000,
      );
    }
    const rerunAfterMs = VICTIMS.map((prompt) => (model.turnStarts.get(prompt)?.[1] ?? Number.NaN) - readyAt);
    console.info(
      `re-run after the restart was ready (ms): ${VICTIMS.map((p, i) => `${p} ${rerunAfterMs[i]}`).join(', ')}`,
    );
    for (const elapsed of rerunAfterMs) expect(elapsed).toBeLessThan(RECOVERY_BOUND_MS);
    await waitFor('every turn to end', async () => {
      const health = await requestJson(`${url}/healthz`);
      return health.body.runningTurns === 0 ? true : undefined;
    });
    // A clean stop lets the queues settle what the turns returned before the database closes.
    expect(await restarted.terminate()).toBe(0);
    for (const unit of ['workflow-task', 'background-job', 'schedule-run']) {
      expect(restarted.log).toMatch(
        new RegExp(
          `recovery: ${unit} \\S+, attempt 1 \\(turn turn_\\S+, previous worker ${killedWorker}\\): requeued: `,
        ),
      );
    }

    controlPlane = await folder.openControlPlane();
    try {
      const shown = await controlPlane.workflows.showWorkflow({ agentId: AGENT, workflowId: workflow.id });
      expect(shown?.status).toBe('completed');
      expect(shown?.tasks.map((task) => [task.id, task.attempts, task.result])).toEqual([
        ['victim', 2, { summary: 'TASK victim #2' }],
        ['after', 1, { summary: 'TASK after #1' }],
      ]);
      const { rows: results } = await queryControlPlane<{ count: number }>(
        controlPlane,
        'SELECT count(*)::int AS count FROM switchyard.task_results WHERE workflow_id = $1',
        [workflow.id],
      );
      expect(results[0]?.count).toBe(2);
      expect(
        await controlPlane.backgroundJobs.checkBackgroundJob({ agentId: AGENT, jobId: job.id }),
      ).toMatchObject({
        status: 'completed',
        result: { text: 'JOB victim answered by turn 2' },
      });
      const { rows: runs } = await queryControlPlane<{ status: string; attempts: number }>(
        controlPlane,
        'SELECT status, attempts FROM switchyard.schedule_runs WHERE schedule_id = $1',
        [schedule.id],
      );
      expect(runs).toEqual([{ status: 'completed', attempts: 2 }]);
      const interrupted = (await controlPlane.turns.list({ agentId: AGENT, status: 'interrupted' })).filter(
        (turn) => turn.workerId === killedWorker,
      );
      expect(interrupted).toHaveLength(3);
      for (const prompt of VICTIMS) expect(model.turns(prompt)).toBe(2);
    } finally {
      await controlPlane.close();
    }
  });
});
