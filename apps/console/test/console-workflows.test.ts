import { toolCallStep } from '@switchyard/testkit';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_TOKEN, ConsoleBrowser, READ_ONLY_TOKEN, VIEWPORT } from './__fixtures__/console-browser';
import { requestJson, waitFor } from './__fixtures__/daemon-requests';
import { isTaskTurn, outputsOf, promptOf } from './__fixtures__/model-requests';

/** The result schema of every task here: one required `summary` string. */
const SUMMARY_SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};

/** A task of a workflow spec whose result is a summary, started once the tasks it `dependsOn` have theirs. */
const task = (id: string, prompt: string, dependsOn?: string[]) => ({
  id,
  prompt,
  resultSchema: SUMMARY_SCHEMA,
  ...(dependsOn === undefined ? {} : { dependsOn }),
});

// An operator far from the schedules' zone, so the schedules page must convert their times.
const OPERATOR_ZONE = 'America/New_York';

describe('the console: workflows, schedules and tools pages (switchyard serve on PGlite, fake model)', () => {
  let bed: ConsoleBrowser;
  let url: string;
  let page: Page;
  let releaseHeld: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  const api = (path: string, init: { body?: unknown } = {}) =>
    requestJson(`${url}${path}`, { ...init, token: BEARER_TOKEN });

  beforeAll(async () => {
    bed = await ConsoleBrowser.start({
      prefix: 'console-workflows',
      settings: { categories: { workflow: {}, schedule: {}, jobs: {} } },
      script: async (request) => {
        const prompt = promptOf(request);
        const outputs = outputsOf(request);
        // A one-shot a few seconds away: a time that passed before the call ran (a loaded machine)
        // is refused, and the model asks again with a new one, as a model would.
        const oneOff = {
          name: 'create_schedule',
          arguments: {
            name: 'one-off-check',
            prompt: 'Check the release once.',
            runAt: new Date(Date.now() + 3_000).toISOString(),
          },
        };
        if (prompt === 'set up the schedules' && outputs.at(-1)?.includes('is in the past')) {
          return { functionCalls: [oneOff] };
        }
        if (outputs.length > 0) return { text: isTaskTurn(request) ? 'Submitted.' : 'Done.' };
        if (prompt === 'set up the schedules') {
          const weekday = {
            name: 'create_schedule',
            arguments: {
              name: 'weekday-report',
              prompt: 'Write the weekday report.',
              cron: '0 6 * * 1-5',
              timeZone: 'Europe/Paris',
            },
          };
          return { functionCalls: [weekday, oneOff] };
        }
        if (prompt === 'start the triage work') {
          return {
            functionCalls: [
              {
                name: 'workflow',
                arguments: { name: 'triage', tasks: [task('sort', 'Sort the inbox')] },
              },
              { name: 'start_background_job', arguments: { prompt: 'Archive the old mail' } },
            ],
          };
        }
        if (!isTaskTurn(request)) return { text: 'Checked.' };
        // The task whose prompt says so waits until the test has seen the others complete.
        if (prompt.includes('HOLD')) await held;
        // This one stays in flight until its turn is aborted (cancelling the workflow aborts it).
        if (prompt.includes('STALL')) return { delayMs: 120_000, text: 'never' };
        return toolCallStep('submit_result', { summary: `done: ${prompt.slice(0, 60)}` });
      },
    });
    url = bed.url;
    page = await bed.signedInPage(BEARER_TOKEN, url, '#/workflows');
  }, 180_000);

  afterAll(async () => {
    releaseHeld();
    await bed?.close();
  }, 120_000);

  it('draws a started workflow’s graph with every task, and the tasks reach completed on the page', async () => {
    // The list, loaded empty, shows the workflow once its first task turn starts: no reload.
    await page.getByText('No workflows yet.').waitFor();
    const started = await api('/v1/workflows', {
      body: {
        name: 'release-check',
        // publish waits for lint and test, which wait for fetch.
        tasks: [
          task('fetch', 'Fetch the release notes'),
          task('lint', 'Lint the change log', ['fetch']),
          task('test', 'Run the checks', ['fetch']),
          task('publish', 'HOLD: publish once lint and test pass', ['lint', 'test']),
        ],
      },
    });
    expect(started.status).toBe(201);
    await page.getByRole('link', { name: 'release-check' }).click();
    expect(page.url()).toBe(`${url}/#/workflows/${started.body.id as string}`);
    const graph = page.getByRole('figure', { name: 'Task graph of workflow release-check' });
    await graph.waitFor();
    const node = (id: string, status: string) => graph.getByRole('button', { name: `Task ${id}: ${status}` });
    // Three tasks complete while the fourth's model request is held: the page shows it running.
    for (const id of ['fetch', 'lint', 'test']) await node(id, 'completed').waitFor();
    await node('publish', 'running').waitFor();
    expect(await graph.locator('path.edge').count()).toBe(4);
    releaseHeld();
    await node('publish', 'completed').waitFor();
    await page.getByText('4 of 4').waitFor();
    // The task list for screen readers names every task too.
    const list = page.getByRole('list', { name: 'Tasks' });
    expect(await list.getByRole('listitem').allTextContents()).toEqual([
      'fetch: completed',
      'lint: completed (after fetch)',
      'test: completed (after fetch)',
      'publish: completed (after lint, test)',
    ]);
    // Selecting a node with the keyboard shows its details: the stored result and its turn.
    await node('lint', 'completed').focus();
    await page.keyboard.press('Enter');
    const details = page.getByRole('complementary', { name: 'Task details' });
    await details.getByRole('heading', { name: 'Task lint' }).waitFor();
    await details.getByText('Stored result').click();
    await details.getByText('done: Lint the change log').waitFor();
    const turnLink = details.getByRole('link', { name: 'Turn of task lint' });
    await turnLink.waitFor();
    expect(await turnLink.getAttribute('href')).toMatch(/^#\/turns\/turn_/);
    await bed.screenshot(page, 'workflow-graph');
    // The task's turn names its source: the workflow by name (linked back to it) and the task.
    await turnLink.click();
    const source = page.locator('dl.facts').first().getByRole('link', { name: 'release-check' });
    await source.waitFor();
    expect(await source.getAttribute('href')).toBe(`#/workflows/${started.body.id as string}`);
    expect(await page.locator('dl.facts').first().textContent()).toContain('task release-check / lint');
    // The list of recent workflows counts its tasks done.
    await page.getByRole('link', { name: 'Workflows', exact: true }).first().click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'release-check' }) });
    await row.getByRole('cell', { name: '4 / 4' }).waitFor();
    await row.getByRole('cell', { name: 'completed' }).waitFor();
  });

  it('names and links the turn whose tool call started a workflow’s task turn and a job’s turn', async () => {
    const parent = await api('/v1/turns', { body: { prompt: 'start the triage work' } });
    const parentId = parent.body.id as string;
    type Listed = { id: string; status: string; origin?: { parentTurnId?: string; jobId?: string } };
    const ended = (source: string) =>
      waitFor(`the ${source} turn started by ${parentId}`, async () => {
        const answer = await api(`/v1/turns?source=${source}`);
        const turns = answer.body.turns as Listed[];
        return turns.find((turn) => turn.origin?.parentTurnId === parentId && turn.status !== 'running');
      });
    const [taskTurn, jobTurn] = await Promise.all([ended('task'), ended('job')]);
    // A workflow started through the API names no parent.
    const apiStarted = (await api('/v1/turns?source=task')).body.turns as Listed[];
    expect(apiStarted.filter((turn) => turn.origin?.parentTurnId === undefined).length).toBeGreaterThan(0);
    for (const child of [taskTurn, jobTurn]) {
      await page.goto(`${url}/#/turns/${child.id}`);
      const facts = page.locator('dl.facts').first();
      const link = facts.getByRole('link', { name: parentId });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe(`#/turns/${parentId}`);
      expect(await facts.textContent()).toContain(`from turn ${parentId}`);
    }
    await page.getByRole('link', { name: parentId }).click();
    await page.getByRole('heading', { name: 'start the triage work' }).waitFor();
  });

  it('shows the daemon’s message at the field of a spec it refuses', async () => {
    await page.goto(`${url}/#/workflows`);
    await page.getByText('Start a workflow').click();
    // Two problems at once (no name, a result schema that is a list): each message at its input.
    await page.getByRole('button', { name: 'Add a task' }).click();
    await page.getByText('Result schema of task 2 (JSON Schema)').click();
    await page.getByLabel('Result schema of task 2').fill('[]');
    await page.getByRole('button', { name: 'Start workflow' }).click();
    const name = page.getByLabel('Workflow name');
    await name.and(page.locator('[aria-invalid="true"]')).waitFor();
    const schema = page.getByLabel('Result schema of task 2');
    expect(await schema.getAttribute('aria-invalid')).toBe('true');
    const messageOf = async (input: typeof name) =>
      page.locator(`[id="${await input.getAttribute('aria-describedby')}"]`).textContent();
    expect(await messageOf(name)).toMatch(/^name: /);
    expect(await messageOf(schema)).toContain(
      'tasks[1].resultSchema: expected the JSON Schema of the task result',
    );
    expect(await page.getByLabel('Prompt of task 2').getAttribute('aria-invalid')).toBeNull();
    await page.getByRole('button', { name: 'Remove task 2' }).click();
    // A spec the daemon's workflow check refuses: an unknown dependency, named at its row.
    await name.fill('broken');
    await page.getByLabel('Id of task 1').fill('one');
    await page.getByLabel('Prompt of task 1').fill('First');
    await page.getByRole('button', { name: 'Add a task' }).click();
    await page.getByLabel('Id of task 2').fill('two');
    await page.getByLabel('Prompt of task 2').fill('Second');
    await page.getByLabel('Result schema of task 2').fill(JSON.stringify(SUMMARY_SCHEMA));
    await page.getByLabel('Depends on (task 2)').fill('one, missing');
    await page.getByRole('button', { name: 'Start workflow' }).click();
    const dependsOn = page.getByLabel('Depends on (task 2)');
    await dependsOn.and(page.locator('[aria-invalid="true"]')).waitFor();
    expect(await dependsOn.getAttribute('aria-invalid')).toBe('true');
    expect(await messageOf(dependsOn)).toContain('task "two" depends on unknown task "missing"');
    expect(await page.getByLabel('Id of task 1').getAttribute('aria-invalid')).toBeNull();
    // Fixed, it starts and the page moves to the new workflow.
    await dependsOn.fill('one');
    await page.getByRole('button', { name: 'Start workflow' }).click();
    await page.getByRole('figure', { name: 'Task graph of workflow broken' }).waitFor();
    expect(page.url()).toMatch(/#\/workflows\/[0-9a-f-]{36}$/);
  });

  it('cancels a running workflow from its page', async () => {
    const started = await api('/v1/workflows', {
      body: { name: 'long-haul', tasks: [task('wait', 'STALL: this never answers')] },
    });
    await page.goto(`${url}/#/workflows/${started.body.id as string}`);
    const graph = page.getByRole('figure', { name: 'Task graph of workflow long-haul' });
    await graph.getByRole('button', { name: 'Task wait: running' }).waitFor();
    await page.getByRole('button', { name: 'Cancel workflow' }).click();
    await graph.getByRole('button', { name: 'Task wait: cancelled' }).waitFor();
    await page.getByRole('definition').getByText('cancelled', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel workflow' }).count()).toBe(0);
  });

  it('hides the start form and the cancel button from the read-only token', async () => {
    const started = await api('/v1/workflows', {
      body: { name: 'watched', tasks: [task('wait', 'STALL: this never answers')] },
    });
    const reader = await bed.signedInPage(READ_ONLY_TOKEN);
    await reader.getByText('Read-only').waitFor();
    await reader.goto(`${url}/#/workflows/${started.body.id as string}`);
    const graph = reader.getByRole('figure', { name: 'Task graph of workflow watched' });
    await graph.getByRole('button', { name: 'Task wait: running' }).waitFor();
    expect(await reader.getByRole('button', { name: 'Cancel workflow' }).count()).toBe(0);
    await reader.getByRole('link', { name: 'Workflows', exact: true }).first().click();
    await reader.getByRole('heading', { name: 'Recent workflows' }).waitFor();
    expect(await reader.getByText('Start a workflow').count()).toBe(0);
    // The full-access page shows both.
    await page.goto(`${url}/#/workflows/${started.body.id as string}`);
    await page.getByRole('button', { name: 'Cancel workflow' }).click();
    await page.getByRole('button', { name: 'Task wait: cancelled' }).waitFor();
  });

  it('lists an agent’s schedules with their next fire times in the browser’s zone and past runs', async () => {
    const turn = await api('/v1/turns', { body: { prompt: 'set up the schedules' } });
    await waitFor('the turn to end', async () => {
      const answer = await api(`/v1/turns/${turn.body.id as string}`);
      return answer.body.status === 'running' ? undefined : answer;
    });
    // The one-off fires a few seconds later; its run names the turn that ran it.
    await waitFor('the one-off schedule to run', async () => {
      const answer = await api('/v1/schedules?all=true');
      const items = answer.body.items as Array<{
        name: string;
        runs: Array<{ turnId?: string; status: string }>;
      }>;
      const run = items.find((item) => item.name === 'one-off-check')?.runs[0];
      return run?.turnId !== undefined && run.status === 'completed' ? run : undefined;
    });
    const context = await bed.browser.newContext({
      viewport: VIEWPORT,
      colorScheme: 'light',
      locale: 'en-US',
      timezoneId: OPERATOR_ZONE,
    });
    const operator = await context.newPage();
    await operator.goto(`${url}/#/schedules`);
    await operator.getByLabel('Bearer or read-only token').fill(BEARER_TOKEN);
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await operator.getByText(`Times are shown in your time zone, ${OPERATOR_ZONE}.`).waitFor();
    const weekday = operator.getByRole('article', { name: 'weekday-report' });
    await weekday.getByText('0 6 * * 1-5').waitFor();
    await weekday.getByText('Europe/Paris').waitFor();
    // Each fire time (06:00 in Paris) at its hour in the operator's zone, whatever the date's offsets.
    const listed = await api('/v1/schedules');
    const nextFireTimes = (listed.body.items as Array<{ name: string; nextFireTimes: string[] }>).find(
      (item) => item.name === 'weekday-report',
    )?.nextFireTimes;
    expect(nextFireTimes).toHaveLength(3);
    const operatorHour = new Intl.DateTimeFormat('en-US', {
      timeZone: OPERATOR_ZONE,
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
    });
    const spaces = (text: string) => text.replace(/\s/g, ' ');
    const shown = (await weekday.locator('dd time').allTextContents()).map(spaces);
    expect(shown).toHaveLength(3);
    shown.forEach((text, index) => {
      expect(text.endsWith(spaces(operatorHour.format(new Date(nextFireTimes?.[index] ?? ''))))).toBe(true);
    });
    await operator.getByLabel('Include ended and cancelled schedules').check();
    const once = operator.getByRole('article', { name: 'one-off-check' });
    const runs = once.getByRole('table', { name: 'Past runs of one-off-check' });
    await runs.getByRole('cell', { name: 'completed' }).waitFor();
    expect(await runs.getByRole('link').getAttribute('href')).toMatch(/^#\/turns\/turn_/);
    await bed.screenshot(operator, 'schedules');
    // The one-off has fired: it is listed only with the ended ones.
    await operator.getByLabel('Include ended and cancelled schedules').uncheck();
    await once.waitFor({ state: 'detached' });
  });

  it('shows the manifest of the agent’s next text turn with its totals', async () => {
    await page.goto(`${url}/#/tools`);
    const table = page.getByRole('table', { name: "The tools agent console's next text turn would send" });
    const row = (key: string) =>
      table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: key, exact: true }) });
    await row('create_schedule').waitFor();
    await row('workflow').getByRole('cell', { name: 'workflow', exact: true }).waitFor();
    const manifest = await api('/v1/tools');
    const totals = manifest.body.totals as { tools: number; strict: number };
    expect(await table.locator('tbody tr').count()).toBe(totals.tools);
    await table.getByRole('cell', { name: `${totals.tools} tools` }).waitFor();
    await table.getByRole('cell', { name: `${totals.strict} strict` }).waitFor();
    await bed.screenshot(page, 'tools');
  });
});
