import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import { postgresTitle, postgresUrl } from '@switchyard/test-databases';
import { type FakeResponsesServer, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../__fixtures__/run-cli';
import { promptOf } from '../__fixtures__/scripted-model';
import { summaryTask } from '../__fixtures__/summary-schema';
import { requestJson, waitFor } from './__fixtures__/http-client';
import { ServeFolder } from './__fixtures__/serve-folder';

// Real `switchyard serve` processes on PostgreSQL with an approval policy: a task turn's
// submit_result and a text turn's write_file are held for an answer. The process holding a task's
// call is SIGKILLed; the approval is answered through another process, which continues the turn: the
// call runs once and the task's result is stored once. The CLI answers beside running daemons; a
// process stopped by SIGTERM lets its waiting turn go for the next process to continue.

const AGENT = 'fleet';
const TIMINGS = { heartbeatMs: 200, staleTurnMs: 1_500, pollSeconds: 0.5, tickMs: 200, graceMs: 1_000 };

/** The fake model: tasks submit, `WRITE <file>` writes it; each prompt's first requests are counted. */
class FakeModel {
  server: FakeResponsesServer | undefined;
  readonly requests = new Map<string, number>();

  /** Starts its server for `folder`'s processes (`folder.remove()` closes it). */
  async start(folder: ServeFolder): Promise<string> {
    this.server = await folder.startFakeModel({
      script: (request) => {
        const prompt = promptOf(request);
        this.requests.set(prompt, (this.requests.get(prompt) ?? 0) + 1);
        const outputs = request.functionCallOutputs.map((output) => String(output.output));
        if (outputs.length > 0) return { text: `Outputs: ${outputs.join(' | ')}` };
        if (prompt.startsWith('TASK ')) {
          return toolCallStep('submit_result', { summary: `${prompt.slice(5)} done` });
        }
        if (prompt.startsWith('WRITE ')) {
          return toolCallStep('write_file', { path: prompt.slice(6), content: 'written once\n' });
        }
        return { text: 'ok' };
      },
    });
    return this.server.baseURL;
  }
}

describe.runIf(postgresUrl !== null)(`${postgresTitle}: serve processes hold calls for approval`, () => {
  let folder: ServeFolder;
  let config: string;
  let homeRoot: string;
  let controlPlane: ControlPlane;
  const model = new FakeModel();
  let environment: Record<string, string>;

  const start = async () => {
    const serve = folder.start(['--config', config], environment);
    await serve.ready;
    return serve;
  };
  const cli = (...args: string[]) =>
    runCli([...args, '--config', config], { cwd: folder.path, env: { USER: 'ops-oncall' } });
  const pendingOf = async (turnId: string) =>
    waitFor('the approval', async () => {
      const [approval] = await controlPlane.approvals.list({ turnId, status: 'pending' });
      return approval;
    });

  beforeAll(async () => {
    folder = await ServeFolder.create('approvals-pg', 'postgres');
    homeRoot = path.join(folder.path, 'homes');
    config = await folder.writeConfig({
      categories: { computer: { homeRoot }, workflow: {} },
      serve: { agents: [AGENT], port: 0, ...TIMINGS },
      approvals: { destructive: 'ask', tools: { submit_result: 'ask' }, approvers: ['on-call'] },
    });
    environment = { OPENAI_BASE_URL: await model.start(folder), OPENAI_API_KEY: 'test' };
    controlPlane = await folder.openControlPlane();
  });

  afterAll(async () => {
    await controlPlane?.close();
    await folder?.remove(10_000);
  });

  it('a SIGKILL of the process waiting on a task’s call loses nothing: another process continues it once answered, and the result is stored once', async () => {
    const first = await start();
    const workflow = await requestJson(`${await first.ready}/v1/workflows`, {
      body: { name: 'deploy', tasks: [summaryTask('deploy', 'TASK deploy')] },
    });
    expect(workflow.status).toBe(201);
    const workflowId = String(workflow.body.id);
    const turn = await waitFor('the task turn to wait', async () => {
      const [record] = await controlPlane.turns.list({ agentId: AGENT, status: 'waiting-approval' });
      return record?.sourceId === `${workflowId}/deploy` ? record : undefined;
    });
    const approval = await pendingOf(turn.id);
    expect(approval).toMatchObject({
      source: 'task',
      toolKey: 'submit_result',
      arguments: { summary: 'deploy done' },
      approvers: ['on-call'],
    });
    const second = await start();
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    // Still pending, still waiting: nothing was lost, and nothing ran.
    const listed = await requestJson(`${await second.ready}/v1/approvals`);
    expect((listed.body.approvals as Array<{ id: string }>).map((entry) => entry.id)).toEqual([approval.id]);
    expect((await controlPlane.turns.get(turn.id))?.status).toBe('waiting-approval');
    expect(
      (await controlPlane.workflows.showWorkflow({ agentId: AGENT, workflowId }))?.tasks[0],
    ).toMatchObject({
      status: 'running',
      attempts: 1,
      result: null,
    });
    // Answered through the second process's API: it takes the turn over once the first's heartbeat
    // is stale, and continues it from the checkpoint.
    const answeredAt = Date.now();
    const answered = await requestJson(`${await second.ready}/v1/approvals/${approval.id}`, {
      body: { decision: 'allow', reason: 'ship it' },
    });
    expect(answered).toMatchObject({ status: 200, body: { status: 'allowed', answeredBy: 'api' } });
    const done = await waitFor(
      'the workflow to complete',
      async () => {
        const shown = await controlPlane.workflows.showWorkflow({ agentId: AGENT, workflowId });
        return shown?.status === 'completed' ? shown : undefined;
      },
      60_000,
    );
    // A figure for the report, not a target: staleTurnMs 1.5 s plus a heartbeat, and the turn's own time.
    console.info(`answered to stored, through a takeover: ${Date.now() - answeredAt} ms`);
    expect(done.tasks).toMatchObject([
      { status: 'completed', attempts: 1, result: { summary: 'deploy done' } },
    ]);
    const { rows } = await queryControlPlane<{ count: number }>(
      controlPlane,
      'SELECT count(*)::int AS count FROM switchyard.task_results WHERE workflow_id = $1',
      [workflowId],
    );
    expect(rows[0]?.count).toBe(1);
    const ended = await waitFor('the turn to be recorded', async () => {
      const record = await controlPlane.turns.get(turn.id);
      return record?.status === 'ended-by-tool' ? record : undefined;
    });
    expect(ended.workerId).toBe(/switchyard serve: worker (worker_\S+)/.exec(second.log)?.[1]);
    // One model request before the hold, none after (submit_result ends the turn), no other attempt.
    expect(model.requests.get('TASK deploy')).toBe(1);
    const log = (await controlPlane.turns.events(turn.id))?.events as Array<{
      type: string;
      name?: string;
      outcome?: string;
    }>;
    expect(log.filter((event) => event.type === 'tool-call-end')).toMatchObject([
      { name: 'submit_result', outcome: 'completed' },
    ]);
    expect(second.log).toContain(
      `continuing turn ${turn.id} of agent ${AGENT} (task ${workflowId}/deploy) after its approval: submit_result allowed`,
    );
  });

  it('the CLI lists and answers approvals beside running daemons; a denial reaches the model, an allowed write runs once', async () => {
    const [serve] = folder.processes.filter(
      (entry) => entry.child.exitCode === null && entry.child.signalCode === null,
    );
    if (serve === undefined) throw new Error('no live serve process');
    const url = await serve.ready;
    const denied = await requestJson(`${url}/v1/turns`, { body: { prompt: 'WRITE refused.txt' } });
    const allowed = await requestJson(`${url}/v1/turns`, { body: { prompt: 'WRITE allowed.txt' } });
    const refusedApproval = await pendingOf(String(denied.body.id));
    const allowedApproval = await pendingOf(String(allowed.body.id));

    const listed = await cli('approvals', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^2 pending approvals, newest first:\n/);
    expect(listed.stdout).toContain(`- ${refusedApproval.id} ${AGENT} (api) write_file: Writing refused.txt`);
    const deny = await cli('approvals', 'deny', refusedApproval.id, '--reason', 'not on a Friday');
    expect(deny).toMatchObject({ code: 0 });
    expect(deny.stdout).toContain('Denied write_file (Writing refused.txt)');
    const allow = await cli('approvals', 'allow', allowedApproval.id);
    expect(allow.code).toBe(0);
    expect((await cli('approvals', 'allow', allowedApproval.id)).stderr).toContain(
      'is already allowed by cli:ops-oncall@',
    );

    const finished = async (id: string) =>
      waitFor('the turn to end', async () => {
        const answer = await requestJson(`${url}/v1/turns/${id}`);
        return answer.body.status === 'completed' ? answer.body : undefined;
      });
    expect((await finished(String(denied.body.id))).output).toBe(
      'Outputs: Tool call denied: an operator denied it: not on a Friday',
    );
    expect((await finished(String(allowed.body.id))).output).toMatch(/^Outputs: Created allowed.txt /);
    const home = path.join(homeRoot, AGENT);
    expect(existsSync(path.join(home, 'refused.txt'))).toBe(false);
    expect(await readFile(path.join(home, 'allowed.txt'), 'utf8')).toBe('written once\n');
    expect((await cli('approvals', 'list', '--all', '--json')).stdout).toContain(
      '"answeredBy":"cli:ops-oncall@',
    );
  });

  it('SIGTERM lets a waiting turn go; the next process continues it once answered', async () => {
    const [serve] = folder.processes.filter(
      (entry) => entry.child.exitCode === null && entry.child.signalCode === null,
    );
    if (serve === undefined) throw new Error('no live serve process');
    const started = await requestJson(`${await serve.ready}/v1/turns`, {
      body: { prompt: 'WRITE relayed.txt' },
    });
    const turnId = String(started.body.id);
    const approval = await pendingOf(turnId);
    expect(await serve.terminate()).toBe(0);
    expect(serve.log).toContain('let 1 turn(s) waiting for approval go');
    expect((await controlPlane.turns.get(turnId))?.status).toBe('waiting-approval');

    const next = await start();
    expect((await cli('approvals', 'allow', approval.id, '--reason', 'fine')).code).toBe(0);
    const ended = await waitFor('the relayed turn to end', async () => {
      const record = await controlPlane.turns.get(turnId);
      return record?.status === 'completed' ? record : undefined;
    });
    expect(ended.workerId).toBe(/switchyard serve: worker (worker_\S+)/.exec(next.log)?.[1]);
    expect(await readFile(path.join(homeRoot, AGENT, 'relayed.txt'), 'utf8')).toBe('written once\n');
    expect(model.requests.get('WRITE relayed.txt')).toBe(2);
  });
});
