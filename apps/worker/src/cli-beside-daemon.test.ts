import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from './__fixtures__/run-cli';
import { isTaskTurn, promptOf } from './__fixtures__/scripted-model';
import { summaryTask } from './__fixtures__/summary-schema';
import { requestJson, waitFor } from './daemon/__fixtures__/http-client';
import { ServeFolder } from './daemon/__fixtures__/serve-folder';

// The CLI in the folder of a `switchyard serve` on embedded PGlite (which holds the database): the
// approvals, schedules, workflows, turns and brain commands go through the daemon's HTTP API, found through the file
// it writes beside its database's lock, with the token of the configuration's environment, and print
// what they print from the database once it stops; `run` says why it cannot run.

const TOKEN = 'cli-beside-daemon-token-0001';

describe('the CLI beside switchyard serve on embedded PGlite (built CLI, same folder)', () => {
  let folder: ServeFolder;
  let url: string;
  let homeRoot: string;
  let approvalId: string;
  let turnId: string;
  let workflowId: string;
  let pageId: string;
  const views = () => [
    ['schedules', 'list'],
    ['schedules', 'list', '--all'],
    ['workflows', 'list'],
    ['workflows', 'show', workflowId],
  ];
  // Read once every turn has its end recorded (the approvals tests end the held one).
  const turnAndBrainViews = () => [
    ['turns', 'list'],
    ['turns', 'show', turnId],
    ['brain', 'list'],
    ['brain', 'list', '--all'],
    ['brain', 'show', pageId],
    ['brain', 'search', 'Acme quote'],
    ['brain', 'search', 'Acme', '--tag', 'suppliers', '--tag', 'prices', '--limit', '3'],
  ];
  const throughDaemonTurnsAndBrain: CliRun[] = [];
  const throughDaemon: CliRun[] = [];
  const cli = (args: string[], env: Record<string, string> = { SWITCHYARD_SERVE_TOKEN: TOKEN }) =>
    runCli(args, { cwd: folder.path, env });

  beforeAll(async () => {
    folder = await ServeFolder.create('cli-beside', 'pglite');
    homeRoot = path.join(folder.path, 'homes');
    await folder.writeConfig({
      categories: { computer: { homeRoot }, schedule: {}, workflow: {}, brain: {} },
      // Every destructive call is held for an answer, API turns' too.
      approvals: { destructive: 'ask' },
    });
    const fake = await folder.startFakeModel({
      script: (request) => {
        const outputs = request.functionCallOutputs.map((output) => String(output.output));
        // A one-shot a second away: a time that passed before the call ran (a loaded machine) is
        // refused, and the model asks again with a new one, as a model would.
        if (
          promptOf(request) === 'ONCE' &&
          (outputs.length === 0 || outputs.at(-1)?.includes('is in the past'))
        ) {
          const runAt = new Date(Date.now() + 1_000).toISOString();
          return toolCallStep('create_schedule', { name: 'reminder', prompt: 'FIRED', runAt });
        }
        if (request.functionCallOutputs.length > 0) {
          return {
            text: `Outputs: ${outputs.join(' | ')}`,
          };
        }
        if (isTaskTurn(request)) return toolCallStep('submit_result', { summary: 'done' });
        if (promptOf(request) === 'FIRED') return { text: 'Reminded.' };
        if (promptOf(request) === 'REMEMBER') {
          return toolCallStep('remember', {
            title: 'Supplier quotes',
            body: 'Acme sells the X200 for 410 EUR.\nAsk for the \u001b[31mquote\u001b[0m again in March.',
            tags: ['suppliers', 'prices'],
          });
        }
        if (promptOf(request) === 'SCHEDULE') {
          return toolCallStep('create_schedule', {
            name: 'digest',
            prompt: 'Sum up the week.',
            cron: '0 9 * * 1-5',
          });
        }
        return toolCallStep('write_file', { path: promptOf(request), content: 'written once\n' });
      },
    });
    ({ url } = await folder.startOnFakeModel(
      fake,
      ['--port', '0'],
      { SWITCHYARD_SERVE_TOKEN: TOKEN },
      {
        cwd: folder.path,
      },
    ));
    // A schedule and a finished workflow for the read-only views (nothing of theirs changes after).
    const scheduling = await requestJson(`${url}/v1/turns`, { body: { prompt: 'SCHEDULE' }, token: TOKEN });
    await waitFor('the cron schedule', async () => {
      const turn = await requestJson(`${url}/v1/turns/${String(scheduling.body.id)}`, { token: TOKEN });
      return turn.body.status === 'completed' ? true : undefined;
    });
    // A one-shot a second away, which fires and finishes while the daemon runs.
    await requestJson(`${url}/v1/turns`, { body: { prompt: 'ONCE' }, token: TOKEN });
    await waitFor('the one-shot to fire', async () => {
      const listed = await requestJson(`${url}/v1/schedules?all=true`, { token: TOKEN });
      const items = (listed.body.items ?? []) as Array<{ name: string; status: string }>;
      return items.find((item) => item.name === 'reminder' && item.status === 'finished');
    });
    const workflow = await requestJson(`${url}/v1/workflows`, {
      body: { name: 'release-check', tasks: [summaryTask('count', 'Count the features.')] },
      token: TOKEN,
    });
    await waitFor('the schedule and the workflow', async () => {
      const turn = await requestJson(`${url}/v1/turns/${String(scheduling.body.id)}`, { token: TOKEN });
      const flow = await requestJson(`${url}/v1/workflows/${String(workflow.body.id)}`, { token: TOKEN });
      return turn.body.status === 'completed' && flow.body.status === 'completed' ? true : undefined;
    });
    workflowId = String(workflow.body.id);
    // A Brain page, written by a turn, for the brain views.
    const remembering = await requestJson(`${url}/v1/turns`, { body: { prompt: 'REMEMBER' }, token: TOKEN });
    await waitFor('the page to be remembered', async () => {
      const turn = await requestJson(`${url}/v1/turns/${String(remembering.body.id)}`, { token: TOKEN });
      return turn.body.status === 'completed' ? true : undefined;
    });
    const pages = await requestJson(`${url}/v1/brain/pages`, { token: TOKEN });
    pageId = String((pages.body.pages as Array<{ pageId: string }>)[0]?.pageId);
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'held.txt' }, token: TOKEN });
    turnId = String(started.body.id);
    approvalId = await waitFor('the held call', async () => {
      const listed = await requestJson(`${url}/v1/approvals`, { token: TOKEN });
      const [approval] = listed.body.approvals as Array<{ id: string }>;
      return approval?.id;
    });
  }, 180_000);

  afterAll(() => folder?.remove(), 120_000);

  const succeeded = (run: CliRun) => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  };

  it('approvals list and show read the pending approval through the daemon', async () => {
    const listed = await cli(['approvals', 'list']);
    succeeded(listed);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^1 pending approval, newest first:\\n- ${approvalId} main \\(api\\) write_file: Writing held\\.txt — asked \\S+, expires \\S+\\n  turn ${turnId}, arguments: \\{"path":"held\\.txt","content":"written once\\\\n"\\}\\n$`,
      ),
    );
    const all = await cli(['approvals', 'list', '--all', '--json']);
    succeeded(all);
    expect(
      (JSON.parse(all.stdout) as Array<{ id: string; agentId: string }>).map((entry) => entry.id),
    ).toEqual([approvalId]);
    const shown = await cli(['approvals', 'show', approvalId]);
    succeeded(shown);
    expect(shown.stdout).toMatch(
      new RegExp(
        `\\nturn ${turnId}, call call_\\d+_0; arguments \\(46 bytes, whole\\):\\n\\{\\n  "path": "held\\.txt",\\n  "content": "written once\\\\n"\\n\\}\\n$`,
      ),
    );
  });

  it('needs the daemon token: without it the daemon refuses and the CLI says so (exit 1)', async () => {
    const refused = await cli(['approvals', 'list'], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`listing approvals through the daemon's API (${url})`);
  });

  it('approvals allow answers through the daemon, and the held call runs once', async () => {
    const malformed = await cli(['approvals', 'allow', 'approval_nope']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('"approval_nope" is not an approval id (approval_<uuid>)');
    const allowed = await cli(['approvals', 'allow', approvalId, '--reason', 'fine']);
    succeeded(allowed);
    expect(allowed.stdout).toBe(
      `Allowed write_file (Writing held.txt) of turn ${turnId}, agent main: the call runs once, in whichever worker holds the turn.\n`,
    );
    const again = await cli(['approvals', 'allow', approvalId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `switchyard: approvals allow: ${approvalId} is already allowed by api: fine`,
    );
    const turn = await waitFor('the turn to end', async () => {
      const answer = await requestJson(`${url}/v1/turns/${turnId}`, { token: TOKEN });
      return answer.body.status === 'running' || answer.body.status === 'waiting-approval'
        ? undefined
        : answer.body;
    });
    expect(turn).toMatchObject({
      status: 'completed',
      output: expect.stringMatching(/^Outputs: Created held\.txt/),
    });
    expect(await readFile(path.join(homeRoot, 'main', 'held.txt'), 'utf8')).toBe('written once\n');
  });

  it('schedules (a fired one-shot kept in the default view) and workflows are read through the daemon', async () => {
    for (const view of views()) {
      const run = await cli(view);
      succeeded(run);
      throughDaemon.push(run);
    }
    const [schedules, , workflows, shown] = throughDaemon;
    expect(schedules?.stdout).toMatch(
      /^2 schedules of agent main \(1 one-shot fired in the last 24 hours\):\n- reminder \(\S+\) finished: once at \S+ in UTC\n {2}prompt: "FIRED"\n- digest \(\S+\) active: cron "0 9 \* \* 1-5" in UTC\n/,
    );
    expect(workflows?.stdout).toMatch(
      new RegExp(`^1 workflow of agent main, newest first:\\n- release-check \\(${workflowId}\\) completed`),
    );
    expect(shown?.stdout).toContain('- count: completed\n  result: {"summary":"done"}\n');
  });

  it('turns list and show, and the brain views, are read through the daemon', async () => {
    // Every turn has its end recorded (its log stored) before the views are read: the records are
    // what the CLI prints once the daemon has stopped.
    const listed = await requestJson(`${url}/v1/turns?limit=100`, { token: TOKEN });
    for (const { id } of listed.body.turns as Array<{ id: string }>) {
      await waitFor(`turn ${id} to have its end recorded`, async () => {
        const turn = await requestJson(`${url}/v1/turns/${id}`, { token: TOKEN });
        return (turn.body.eventsRecorded as number) > 0 ? true : undefined;
      });
    }
    for (const view of turnAndBrainViews()) {
      const run = await cli(view);
      succeeded(run);
      throughDaemonTurnsAndBrain.push(run);
    }
    const [turns, shown, pages, , page, search, tagged] = throughDaemonTurnsAndBrain;
    expect(turns?.stdout).toMatch(
      /^6 turns of agent main, newest first:\n- turn_\S+ completed \(api\), started \S+, ended \S+\n {2}title: "held\.txt"\n/,
    );
    expect(turns?.stdout).toContain(' ended-by-tool (task ');
    expect(turns?.stdout).toContain(' completed (schedule ');
    expect(shown?.stdout).toMatch(
      new RegExp(
        `^Turn ${turnId} completed \\(api\\), started \\S+, ended \\S+\\nagent: main, worker: \\S+\\n\\d+ model requests?, \\d+ tokens \\(\\d+ in, \\d+ out\\)\\nevents: [1-9]\\d* recorded\\nprompt: "held\\.txt"\\noutput:\\nOutputs: Created held\\.txt`,
      ),
    );
    expect(pages?.stdout).toMatch(
      new RegExp(
        `^1 page of agent main, most recently written first:\\n- ${pageId} "Supplier quotes" \\(version 1, tags: suppliers, prices; \\d+ B; written \\S+\\)\\n$`,
      ),
    );
    // The model's escape sequence is shown, not sent to the terminal.
    expect(page?.stdout).toContain(
      '\nAcme sells the X200 for 410 EUR.\nAsk for the \ufffd[31mquote\ufffd[0m again in March.\n',
    );
    expect(search?.stdout).toMatch(
      new RegExp(`^1 page of agent main for "Acme quote", best first:\\n- ${pageId} "Supplier quotes"`),
    );
    expect(tagged?.stdout).toMatch(
      /^1 page of agent main tagged suppliers, prices for "Acme", best first:\n/,
    );
    const refused = await cli(['brain', 'search', 'x'.repeat(3000)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^switchyard: brain search: query: /);
    throughDaemonTurnsAndBrain.push(refused);
    const unknownPage = await cli(['brain', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(unknownPage).toMatchObject({
      code: 1,
      stderr: 'switchyard: brain show: no page 00000000-0000-4000-8000-000000000000\n',
    });
  });

  it('run says why it cannot run beside the daemon and how to start the turn there', async () => {
    const run = await cli(['run', 'hello'], {
      SWITCHYARD_SERVE_TOKEN: TOKEN,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      SWITCHYARD_MODEL: 'fake-model',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("holds this folder's embedded database");
    expect(run.stderr).toContain(`POST ${url}/v1/turns with {"prompt": "...", "agent": "main"}`);
  });

  it('prints the same as the database says once the daemon has stopped', async () => {
    const [serve] = folder.processes;
    expect(await serve?.terminate()).toBe(0);
    const fromDatabase: CliRun[] = [];
    for (const view of views()) fromDatabase.push(await cli(view));
    expect(fromDatabase).toEqual(throughDaemon);
    const turnsAndBrainFromDatabase: CliRun[] = [];
    for (const view of turnAndBrainViews()) turnsAndBrainFromDatabase.push(await cli(view));
    turnsAndBrainFromDatabase.push(await cli(['brain', 'search', 'x'.repeat(3000)]));
    expect(turnsAndBrainFromDatabase).toEqual(throughDaemonTurnsAndBrain);
  });
});
