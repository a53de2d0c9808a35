import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openControlPlane } from '@switchyard/control-plane';
import { createPgliteDataDir } from '@switchyard/test-databases';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './__fixtures__/run-cli';

describe('switchyard schedules list and workflows show (read-only views)', () => {
  let cwd: string;
  let dataDir: string;
  let workflowId: string;

  beforeAll(async () => {
    dataDir = await createPgliteDataDir();
    cwd = await mkdtemp(path.join(os.tmpdir(), 'switchyard-views-'));
    await writeFile(path.join(cwd, 'switchyard.config.json'), JSON.stringify({ database: { dataDir } }));
    // Written by one process, then read by the CLI in another: PGlite is single-process.
    const controlPlane = await openControlPlane({ dataDir, environment: {} });
    try {
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
    } finally {
      await controlPlane.close();
    }
  }, 180_000);

  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it("lists an agent's schedules", async () => {
    const run = await runCli(['schedules', 'list', '--agent', 'ada'], { cwd });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^1 active schedule of agent ada:\n- morning-digest \([0-9a-f-]{36}\) active: cron "0 9 \* \* 1-5" in Europe\/Berlin\n {2}next: \d{4}-.*T09:00:00\+0[12]:00, /,
    );
    expect(run.stdout).toContain('  prompt: "Summarise the overnight mail."');
    const other = await runCli(['schedules', 'list', '--agent', 'bob'], { cwd });
    expect(other.stdout).toBe('Agent bob has no active schedules.\n');
  });

  it("shows a workflow's tasks and stored results, and refuses an unknown id", async () => {
    const run = await runCli(['workflows', 'show', workflowId], { cwd });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^Workflow compare-releases \\(${workflowId}\\) of agent ada: running, created \\d{4}-`),
    );
    expect(run.stdout).toContain(
      '2 tasks, 1 completed:\n- a: completed\n  result: {"version":"1.2.0"}\n- b: pending\n',
    );
    const unknown = await runCli(['workflows', 'show', '00000000-0000-4000-8000-000000000000'], { cwd });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no workflow 00000000-0000-4000-8000-000000000000');
    const notAnId = await runCli(['workflows', 'show', 'nope'], { cwd });
    expect(notAnId.code).toBe(1);
    expect(notAnId.stderr).toContain('"nope" is not a workflow id');
  });
});
