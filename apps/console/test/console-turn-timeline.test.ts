import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeRequest, type FakeResponse, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_TOKEN, ConsoleBrowser } from './__fixtures__/console-browser';
import { requestJson, waitFor } from './__fixtures__/daemon-requests';
import { promptOf } from './__fixtures__/model-requests';

// A turn's timeline, the search of turns and what a held call shows, in a real chromium against a
// real `switchyard serve` child on PGlite with the fake model (destructive calls held for approval).

const PLAN_BEFORE = 'step one\nstep two\nstep four\n';
const PLAN_AFTER = 'step one\nstep 2\nstep three\nstep four\n';

/**
 * `TIMELINE`: a slow first answer with two reads (parallel) and a write (sequential, held), then a
 * slow final answer. `EDIT <file>`: one held `edit_file` of the plan. `REWRITE <file>`: one held
 * `write_file` of the plan's new text over the file. Anything else: `ok`.
 */
function script(request: FakeRequest): FakeResponse {
  const prompt = promptOf(request);
  if (request.functionCallOutputs.length > 0) return { delayMs: 200, text: 'All done.' };
  if (prompt.startsWith('TIMELINE')) {
    return {
      delayMs: 300,
      functionCalls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'read_file', arguments: { path: 'b.txt' } },
        { name: 'write_file', arguments: { path: 'timeline.txt', content: 'written\n' } },
      ],
    };
  }
  if (prompt.startsWith('REWRITE ')) {
    return toolCallStep('write_file', { path: prompt.slice(8), content: PLAN_AFTER });
  }
  if (prompt.startsWith('EDIT ')) {
    return toolCallStep('edit_file', {
      path: prompt.slice(5),
      old_string: PLAN_BEFORE,
      new_string: PLAN_AFTER,
    });
  }
  return { text: 'ok' };
}

interface Bar {
  label: string;
  start: number;
  end: number;
}

describe('the console: a turn’s timeline, search and held calls an operator can judge', () => {
  let bed: ConsoleBrowser;
  const startTurn = async (prompt: string) => {
    const started = await requestJson(`${bed.url}/v1/turns`, { body: { prompt }, token: BEARER_TOKEN });
    expect(started.status).toBe(202);
    return String(started.body.id);
  };
  const turnOf = async (id: string) =>
    (await requestJson(`${bed.url}/v1/turns/${id}`, { token: BEARER_TOKEN })).body;
  const pendingApproval = (turnId: string) =>
    waitFor('the approval', async () => {
      const listed = await requestJson(`${bed.url}/v1/approvals?turn=${turnId}`, { token: BEARER_TOKEN });
      return (listed.body.approvals as Array<{ id: string }>)[0];
    });
  const answer = (approvalId: string, decision: 'allow' | 'deny', reason?: string) =>
    requestJson(`${bed.url}/v1/approvals/${approvalId}`, {
      body: reason === undefined ? { decision } : { decision, reason },
      token: BEARER_TOKEN,
    });

  beforeAll(async () => {
    bed = await ConsoleBrowser.start({
      prefix: 'console-timeline',
      script,
      settings: { approvals: { destructive: 'ask' } },
    });
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('draws a turn with parallel and sequential calls and a held call as one bar per step, in order, within the turn', async () => {
    const id = await startTurn('TIMELINE of a held write\nwith two reads first');
    const page = await bed.signedInPage(BEARER_TOKEN, bed.url, `#/turns/${id}`);
    await page.getByRole('heading', { name: 'TIMELINE of a held write', level: 1 }).waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    // Live: the wait for the approval shows as a bar while the turn waits.
    await timeline
      .getByRole('listitem', { name: /^Waiting for approval: Writing timeline\.txt: .*, waiting$/ })
      .waitFor();
    const approval = await pendingApproval(id);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await answer(approval.id, 'allow')).status).toBe(200);
    await page.getByText('ended', { exact: true }).waitFor();
    const turn = await turnOf(id);
    expect(turn.status).toBe('completed');
    await timeline.getByRole('listitem', { name: /^Model request 2: / }).waitFor();

    const bars: Bar[] = await timeline.getByRole('listitem').evaluateAll((items) =>
      items.map((item) => ({
        label: String(item.getAttribute('aria-label')),
        start: Number(item.getAttribute('data-start-ms')),
        end: Number(item.getAttribute('data-end-ms')),
      })),
    );
    const names = bars.map((bar) => bar.label.slice(0, bar.label.indexOf(': from')));
    expect(names).toHaveLength(6);
    expect(names[0]).toBe('Model request 1');
    expect(
      names.slice(1, 3).every((name) => /^Read .*[ab]\.txt|^Reading [ab]\.txt|[ab]\.txt/.test(name)),
    ).toBe(true);
    expect(names.slice(3)).toEqual([
      'Waiting for approval: Writing timeline.txt',
      'Wrote 1 line to timeline.txt',
      'Model request 2',
    ]);
    const starts = bars.map((bar) => bar.start);
    expect(starts).toEqual(starts.toSorted((a, b) => a - b));
    const turnStart = Date.parse(String(turn.createdAt));
    const duration = Date.parse(String(turn.endedAt)) - turnStart;
    for (const bar of bars) {
      expect(bar.start, bar.label).toBeGreaterThanOrEqual(0);
      expect(bar.end, bar.label).toBeGreaterThanOrEqual(bar.start);
      expect(bar.end, bar.label).toBeLessThanOrEqual(duration + 1);
    }
    const [model1, readA, readB, waiting, write, model2] = bars as [Bar, Bar, Bar, Bar, Bar, Bar];
    // Sequential steps do not overlap: each starts once the one before it ended.
    expect(readA.start).toBeGreaterThanOrEqual(model1.end);
    expect(waiting.start).toBeGreaterThanOrEqual(Math.max(readA.end, readB.end) - 1);
    expect(write.start).toBeGreaterThanOrEqual(waiting.end);
    expect(model2.start).toBeGreaterThanOrEqual(write.end);
    expect(waiting.end - waiting.start).toBeGreaterThanOrEqual(400);

    // Each bar is drawn at its step's real length: its ends are the times the daemon stamped on the
    // step's events (`at`), read here from the turn's recorded log, whatever the load made them. Not
    // a share of the turn: the daemon's own work between steps grows with the machine's load.
    const stream = await fetch(`${bed.url}/v1/turns/${id}/events`, {
      headers: { authorization: `Bearer ${BEARER_TOKEN}` },
    });
    expect(stream.status).toBe(200);
    // The turn has ended: its stream replays the log and ends. One `data:` line per event.
    const events = (await stream.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; [field: string]: unknown });
    const recorded = (type: string, match: (event: { [field: string]: unknown }) => boolean) => {
      const found = events.filter((event) => event.type === type && match(event));
      expect(found, type).toHaveLength(1);
      return Date.parse(String(found[0]?.at)) - turnStart;
    };
    const model = (iteration: number) => ({
      start: recorded('model-request-start', (event) => event.iteration === iteration),
      end: recorded('model-request-end', (event) => event.iteration === iteration),
    });
    // A call by the activity its end reports (the bar's label), then its start by its call id.
    const call = (activity: string) => {
      const ends = events.filter((event) => event.type === 'tool-call-end' && event.activity === activity);
      expect(ends, activity).toHaveLength(1);
      return {
        start: recorded('tool-call-start', (event) => event.callId === ends[0]?.callId),
        end: recorded('tool-call-end', (event) => event.callId === ends[0]?.callId),
      };
    };
    const held = (type: string) =>
      recorded(type, (event) => (event.approval as { id?: unknown } | undefined)?.id === approval.id);
    const steps = [
      model(1),
      call(names[1] as string),
      call(names[2] as string),
      { start: held('approval-requested'), end: held('approval-resolved') },
      call(names[4] as string),
      model(2),
    ] as const;
    // One bar per recorded step: none left out.
    const stepStarts = ['model-request-start', 'tool-call-start', 'approval-requested'];
    expect(events.filter((event) => stepStarts.includes(event.type))).toHaveLength(bars.length);
    for (const [index, step] of steps.entries()) {
      const bar = bars[index] as Bar;
      // Within a millisecond: the page rounds, the recorded times are whole milliseconds.
      expect(Math.abs(bar.start - step.start), `${bar.label} starts at ${step.start}`).toBeLessThanOrEqual(1);
      expect(Math.abs(bar.end - step.end), `${bar.label} ends at ${step.end}`).toBeLessThanOrEqual(1);
    }

    // The steps and `Other` (the daemon's own work between them) add up to the turn: how that time
    // is split depends on the load, the sum does not.
    const covered =
      steps[0].end -
      steps[0].start +
      (Math.max(steps[1].end, steps[2].end) - Math.min(steps[1].start, steps[2].start)) +
      (steps[3].end - steps[3].start) +
      (steps[4].end - steps[4].start) +
      (steps[5].end - steps[5].start);
    expect(covered).toBeLessThanOrEqual(duration + 1);
    const totals = page.locator('dl.facts').last();
    for (const label of ['Tokens in', 'Tokens out', 'Model time', 'Tool time', 'Waiting time']) {
      expect(await totals.getByText(label, { exact: true }).count(), label).toBe(1);
    }
    // The page has the ended turn (its status and its end come in one snapshot): `Other` is final.
    await page.locator('dl.facts').first().getByText('completed', { exact: true }).waitFor();
    const otherText = String(
      await totals
        .locator('div')
        .filter({ has: page.getByText('Other', { exact: true }) })
        .locator('dd')
        .textContent(),
    );
    // Shown rounded (`212 ms`, `1.2 s`, `1 min 3 s`): read back within that rounding.
    const [, minutes, amount, unit] = /^(?:(\d+) min )?(\d+(?:\.\d)?) (ms|s)$/.exec(otherText) ?? [];
    expect(amount, otherText).toBeDefined();
    const other = Number(minutes ?? 0) * 60_000 + Number(amount) * (unit === 'ms' ? 1 : 1_000);
    const rounding = minutes !== undefined ? 500 : unit === 's' ? 50 : 0;
    expect(Math.abs(other + covered - duration), `Other: ${otherText}`).toBeLessThanOrEqual(rounding + 1);
    await bed.screenshot(page, 'turn-timeline');
  });

  it('finds a turn by text in its prompt, the search kept in the URL across a reload', async () => {
    const wanted = await startTurn('Feed the ZEBRAS at noon\nand the lions after');
    const other = await startTurn('water the plants');
    await waitFor('the turns to end', async () =>
      (await turnOf(other)).status === 'completed' && (await turnOf(wanted)).status === 'completed'
        ? true
        : undefined,
    );
    const page = await bed.signedInPage(BEARER_TOKEN);
    await page.getByRole('row').filter({ hasText: other }).waitFor();
    await page.getByLabel('Search prompts').fill('zebras');
    await page.getByLabel('Search prompts').press('Enter');
    const table = page.getByRole('table');
    await table.getByRole('link', { name: 'Feed the ZEBRAS at noon' }).waitFor();
    await waitFor('the other turn to go', async () =>
      (await table.getByText(other).count()) === 0 ? true : undefined,
    );
    expect(page.url()).toContain('text=zebras');
    await page.reload();
    await page.getByRole('table').getByRole('link', { name: 'Feed the ZEBRAS at noon' }).waitFor();
    expect(await page.getByLabel('Search prompts').inputValue()).toBe('zebras');
    expect(await page.getByRole('table').getByText(other).count()).toBe(0);
    await bed.screenshot(page, 'turns-search');
  });

  it('shows a held edit as a diff with its turn’s prompt; denied, the call keeps its label and arguments', async () => {
    const id = await startTurn('EDIT plan.md');
    await pendingApproval(id);
    const page = await bed.signedInPage(BEARER_TOKEN, bed.url, '#/approvals');
    const card = page.getByRole('article', { name: 'Editing plan.md' });
    await card.waitFor();
    const diff = card.getByRole('region', { name: 'Change to plan.md' });
    await diff.waitFor();
    const lines = (await diff.locator('pre').textContent())?.split('\n') ?? [];
    expect(lines).toEqual(
      expect.arrayContaining(['  step one', '- step two', '+ step 2', '+ step three', '  step four']),
    );
    // The turn's prompt, its title as the summary.
    await card.locator('summary', { hasText: 'EDIT plan.md' }).waitFor();
    await bed.screenshot(page, 'approval-diff');
    await card.getByLabel('Reason').fill('not this plan');
    await card.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('No call is waiting for an answer.').waitFor();

    await page.goto(`${bed.url}/#/turns/${id}`);
    await page.getByText('ended', { exact: true }).waitFor();
    const call = page.getByRole('article', { name: 'Tool call: Editing plan.md' });
    await call.getByText('denied', { exact: true }).waitFor();
    await call.getByText('Arguments').click();
    expect(await call.locator('details pre').first().textContent()).toContain('step three');
    await page.getByText('Approval denied by console: Editing plan.md — not this plan').waitFor();
    expect(await page.getByRole('link', { name: 'answer it on the Approvals page' }).count()).toBe(0);
  });

  it('shows a held write_file over an existing file as a diff of the file the daemon recorded, and says when it cannot', async () => {
    const home = path.join(bed.daemon.folder, 'homes', 'console');
    await mkdir(home, { recursive: true });
    await writeFile(path.join(home, 'rewrite.md'), PLAN_BEFORE);
    await writeFile(path.join(home, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    const rewrite = await startTurn('REWRITE rewrite.md');
    const approval = (await pendingApproval(rewrite)) as { id: string; fileBefore?: unknown };
    // Recorded when the approval was asked for: what the file was then, whatever happens to it later.
    expect(approval.fileBefore).toEqual({
      path: 'rewrite.md',
      state: 'text',
      text: PLAN_BEFORE,
      bytes: PLAN_BEFORE.length,
    });
    await writeFile(path.join(home, 'rewrite.md'), 'changed meanwhile\n');
    const page = await bed.signedInPage(BEARER_TOKEN, bed.url, '#/approvals');
    const card = page.getByRole('article', { name: 'Writing rewrite.md' });
    const diff = card.getByRole('region', { name: 'Change to rewrite.md' });
    await diff.waitFor();
    const lines = (await diff.locator('pre').textContent())?.split('\n') ?? [];
    expect(lines).toEqual(['  step one', '- step two', '+ step 2', '+ step three', '  step four', '']);

    // A binary file and a new one: said so, with no diff of the binary.
    const binary = await startTurn('REWRITE logo.png');
    const created = await startTurn('REWRITE fresh.md');
    await pendingApproval(binary);
    await pendingApproval(created);
    const logo = page.getByRole('article', { name: 'Writing logo.png' }).getByRole('region', {
      name: 'Change to logo.png',
    });
    await logo.getByText('It replaces a binary file of 0 KB: no diff is shown.').waitFor();
    expect(await logo.locator('pre').count()).toBe(0);
    const fresh = page.getByRole('article', { name: 'Writing fresh.md' }).getByRole('region', {
      name: 'Change to fresh.md',
    });
    await fresh.getByText('A new file.').waitFor();
    expect(await fresh.locator('pre').textContent()).toBe(
      '+ step one\n+ step 2\n+ step three\n+ step four\n',
    );
    await bed.screenshot(page, 'approval-write-diff');

    await answer(approval.id, 'allow');
    await waitFor('the rewrite to end', async () =>
      (await turnOf(rewrite)).status === 'completed' ? true : undefined,
    );
    expect(await readFile(path.join(home, 'rewrite.md'), 'utf8')).toBe(PLAN_AFTER);
  });
});
