import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeRequest, type FakeResponse, toolCallStep } from '@switchyard/testkit';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_TOKEN, ConsoleBrowser, READ_ONLY_TOKEN } from './__fixtures__/console-browser';
import { requestJson, waitFor } from './__fixtures__/daemon-requests';
import { promptOf } from './__fixtures__/model-requests';

// The console's turns and approvals pages in a real chromium against a real `switchyard serve` child
// on PGlite with the fake model: a turn started through the API appears in the list live and its tool
// calls fill in on its page; a held call is allowed from the page and its turn finishes; the read-only
// token sees no controls and cannot answer; a token-less daemon on loopback needs no sign-in.

/** Releases the `READ` turn's first answer: the test holds it until the page shows the turn running. */
let releaseRead: () => void = () => {};
const readHeld = new Promise<void>((resolve) => {
  releaseRead = resolve;
});

/** Releases the `HOLD` turn's answer. */
let releaseHold: () => void = () => {};
const holdReleased = new Promise<void>((resolve) => {
  releaseHold = resolve;
});

/**
 * The fake model. `HOLD`: `released`, once `releaseHold()` is called. `READ <file>`: a first answer
 * held until `releaseRead()` (so the turn is seen running, however slow the machine) with text and
 * three calls: `read_file` in a code fence (repaired), `read_file` of the file, and one with arguments
 * that are not an object (refused); then it answers with the outputs. `WRITE <file>`: one
 * `write_file`, held by the policy. `LONG <n>`: n characters of text in `LONG_TURN_DELTAS` deltas.
 * Anything else: `ok`.
 */
async function script(request: FakeRequest): Promise<FakeResponse> {
  const prompt = promptOf(request);
  const outputs = request.functionCallOutputs.map((output) => String(output.output));
  if (prompt === 'REUSE' && outputs.length < 2) {
    // The endpoint numbers calls per response: the second response's call has the first one's id.
    const file = outputs.length === 0 ? 'first.txt' : 'second.txt';
    return { functionCalls: [{ name: 'read_file', arguments: { path: file }, callId: 'call_1' }] };
  }
  if (outputs.length > 0) return { text: `Done: ${outputs.length} outputs.` };
  if (prompt.startsWith('READ ')) {
    const file = prompt.slice(5);
    await readHeld;
    return {
      text: `Reading ${file} now.`,
      functionCalls: [
        { name: 'read_file', arguments: `\`\`\`json\n${JSON.stringify({ path: file })}\n\`\`\`` },
        { name: 'read_file', arguments: { path: 'missing.txt' } },
        { name: 'read_file', arguments: '[1, 2]' },
      ],
    };
  }
  if (prompt.startsWith('WRITE ')) {
    return toolCallStep('write_file', { path: prompt.slice(6), content: 'approved\n' });
  }
  if (prompt.startsWith('BIG ')) {
    return toolCallStep('write_file', { path: prompt.slice(4), content: BIG_CONTENT });
  }
  if (prompt === 'HOLD') {
    await holdReleased;
    return { text: 'released' };
  }
  if (prompt.startsWith('LONG ')) {
    return { text: 'x'.repeat(Number(prompt.slice(5))), textChunks: LONG_TURN_DELTAS };
  }
  return { text: 'ok' };
}

/**
 * What the page sees and when (run in the page before its own scripts): each answer of `GET
 * /v1/turns` is read whole and then held until `releaseList()`, counted as asked and as read; the
 * text of `/v1/events` is copied as it arrives. The daemon is real; only the order is the test's.
 */
function holdTheList(): void {
  const page = globalThis as unknown as {
    fetch: (input: unknown, init?: { method?: string }) => Promise<Response>;
    location: { href: string };
    listAsked: number;
    listRead: number;
    eventsText: string;
    releaseList: () => void;
  };
  const fetch = page.fetch.bind(globalThis);
  const released = new Promise<void>((resolve) => {
    page.releaseList = resolve;
  });
  page.listAsked = 0;
  page.listRead = 0;
  page.eventsText = '';
  page.fetch = async (input, init) => {
    const request = input as { url?: string; method?: string };
    const url = new URL(typeof input === 'string' ? input : String(request.url), page.location.href);
    const method = init?.method ?? request.method ?? 'GET';
    if (url.pathname === '/v1/turns' && method === 'GET') {
      page.listAsked += 1;
      const response = await fetch(input, init);
      const body = await response.text();
      page.listRead += 1;
      await released;
      return new Response(body, { status: response.status, headers: response.headers });
    }
    const response = await fetch(input, init);
    if (url.pathname !== '/v1/events' || response.body === null) return response;
    const [shown, copy] = response.body.tee();
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of copy) page.eventsText += decoder.decode(chunk, { stream: true });
    })();
    return new Response(shown, { status: response.status, headers: response.headers });
  };
}

/** 100 KiB of arguments: a harmless start, a run of spaces, and a tail a preview of the start would hide. */
const BIG_CONTENT = `harmless start${' '.repeat(100 * 1024)}hidden tail\n`;

const STREAM_LIMIT = 64 * 1024;

/**
 * The text of a `LONG` turn in the fell-behind test, in deltas of 8 KiB: each turn streams far more
 * than the stream's limit, and ends within a second or two on a loaded machine (the test waits for the
 * one running when the daemon cut the page off, and the daemon gives the page 30 s from then).
 */
const LONG_TURN_CHARACTERS = 2 * 1024 * 1024;
const LONG_TURN_DELTAS = 256;

/**
 * The most `LONG` turns the fell-behind test runs before it gives up on the cut-off: enough to fill
 * the kernel's buffers at their largest (the daemon's send buffer, the browser's receive buffer) and
 * 16 MiB more for the browser's own, twice over.
 */
const LONG_TURNS_AT_MOST = (() => {
  const largest = (file: string) => Number(readFileSync(file, 'utf8').trim().split(/\s+/).at(-1));
  const buffers = largest('/proc/sys/net/ipv4/tcp_wmem') + largest('/proc/sys/net/ipv4/tcp_rmem');
  return 2 * Math.ceil((buffers + 16 * 1024 * 1024) / LONG_TURN_CHARACTERS);
})();

describe('the console: turns and approvals', () => {
  let bed: ConsoleBrowser;
  const startTurn = async (prompt: string) => {
    const started = await requestJson(`${bed.url}/v1/turns`, { body: { prompt }, token: BEARER_TOKEN });
    expect(started.status).toBe(202);
    return String(started.body.id);
  };
  const turnStatus = async (id: string) =>
    String((await requestJson(`${bed.url}/v1/turns/${id}`, { token: BEARER_TOKEN })).body.status);
  const pendingApproval = (turnId: string) =>
    waitFor('the approval', async () => {
      const listed = await requestJson(`${bed.url}/v1/approvals?turn=${turnId}`, { token: BEARER_TOKEN });
      return (listed.body.approvals as Array<{ id: string }>)[0];
    });
  const turnRow = (page: Page, id: string) => page.getByRole('row').filter({ hasText: id });
  /** How many `/v1/events` streams the daemon has logged cutting off for a reader that fell behind. */
  const cutOffs = () => bed.daemon.log.split('a reader of GET /v1/events fell more than').length - 1;

  beforeAll(async () => {
    bed = await ConsoleBrowser.start({
      prefix: 'console-turns',
      script,
      // A small limit on what an event stream holds for a page that stops reading.
      settings: { approvals: { destructive: 'ask' }, serve: { maxEventStreamBytes: STREAM_LIMIT } },
    });
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('shows a turn started through the API live in the list, then its tool calls on its page', async () => {
    const page = await bed.signedInPage(BEARER_TOKEN);
    await page.getByRole('heading', { name: 'Turns', level: 1 }).waitFor();
    await page.getByText('live', { exact: true }).waitFor();

    const id = await startTurn('READ notes.txt');
    // No reload: the row comes from `/v1/events`, first running (its model answer is held until the
    // page shows it), then completed.
    const row = turnRow(page, id);
    await row.getByText('running').waitFor();
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('console');
    releaseRead();
    await row.getByText('completed').waitFor();
    await bed.screenshot(page, 'turns');

    // The first page's time to interactive: navigation start to the table rendered with its rows
    // (the page marks it), on a reload with the token already in the tab.
    await page.reload();
    await turnRow(page, id).waitFor();
    const interactive = await page.evaluate(
      () => performance.getEntriesByName('console:turns-rendered')[0]?.startTime,
    );
    expect(interactive).toBeGreaterThan(0);
    console.log(`console: first page interactive in ${Math.round(interactive ?? 0)} ms`);

    // The row's link is the turn's title (its prompt's first line), its page's heading too.
    await turnRow(page, id).getByRole('link', { name: 'READ notes.txt' }).click();
    await page.getByRole('heading', { name: 'READ notes.txt', level: 1 }).waitFor();
    await page.getByText(id, { exact: true }).waitFor();
    await page.getByText('Reading notes.txt now.').waitFor();
    const calls = page.getByRole('article', { name: /^Tool call:/ });
    await page.getByText('ended', { exact: true }).waitFor();
    expect(await calls.count()).toBe(3);
    // notes.txt does not exist in the fresh home either: each call's outcome is shown as text.
    const fenced = calls.filter({ hasText: 'repaired:' });
    expect(await fenced.getByText('repaired: strip-code-fence').count()).toBe(1);
    expect(await fenced.getByText('tool-error').count()).toBe(1);
    await fenced.getByText('Arguments').click();
    expect(await fenced.locator('details pre').first().textContent()).toContain('"path": "notes.txt"');
    const refused = calls.filter({ hasText: 'refused:' });
    expect(await refused.getByText('invalid-arguments').count()).toBe(1);
    expect(await refused.getByText('refused: not-an-object').count()).toBe(1);
    await refused.getByText('Output').click();
    expect(await refused.locator('details pre').textContent()).toContain('not-an-object; nothing was run');
    expect(await page.getByText('Done: 3 outputs.').count()).toBe(1);
    // The header: status and tokens of the ended turn.
    expect(await page.locator('dl.facts').first().textContent()).toContain('completed');
    // The whole prompt under the title, and the timeline's totals.
    expect(await page.locator('pre.prompt').textContent()).toBe('READ notes.txt');
    await page
      .getByRole('list', { name: 'Timeline' })
      .getByRole('listitem', { name: /^Model request 1: / })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Cancel turn' }).count()).toBe(0);
    await bed.screenshot(page, 'turn');
  });

  it('keeps a turn the live feed brought while the list was loading, over an answer that predates it', async () => {
    const page = await bed.newPage();
    await page.addInitScript(holdTheList);
    await page.goto(`${bed.url}/#/turns`);
    await page.getByLabel('Bearer or read-only token').fill(BEARER_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Live: the page asked for the list on its first render and again as the stream opened.
    await page.getByText('live', { exact: true }).waitFor();
    const seen = () =>
      page.evaluate(() => {
        const { listAsked, listRead, eventsText } = globalThis as unknown as {
          listAsked: number;
          listRead: number;
          eventsText: string;
        };
        return { listAsked, listRead, eventsText };
      });
    // Every answer the page asked for was made before the turn exists.
    const asked = await waitFor('the list answers read', async () => {
      const { listAsked, listRead } = await seen();
      return listAsked > 0 && listRead === listAsked ? listAsked : undefined;
    });
    const id = await startTurn('HOLD');
    await waitFor('the page to get the turn from the live feed', async () =>
      (await seen()).eventsText.includes(id) ? true : undefined,
    );
    await page.evaluate(() => (globalThis as unknown as { releaseList: () => void }).releaseList());
    // The list is drawn from the last answer, which predates the turn, with the turn over it.
    await page.getByRole('table').waitFor();
    expect(await turnRow(page, id).count()).toBe(1);
    // No later load (whose answer would have had the turn anyway) was asked for.
    expect((await seen()).listAsked).toBe(asked);
    releaseHold();
    await turnRow(page, id).getByText('completed').waitFor();
  });

  it('shows two calls of a turn whose endpoint reused a call id as two calls, each with its own end', async () => {
    const id = await startTurn('REUSE');
    expect(
      await waitFor('the turn to end', async () =>
        (await turnStatus(id)) === 'completed' ? true : undefined,
      ),
    ).toBe(true);
    const page = await bed.signedInPage(BEARER_TOKEN, bed.url, `#/turns/${id}`);
    await page.getByText('ended', { exact: true }).waitFor();
    const calls = page.getByRole('article', { name: /^Tool call:/ });
    expect(await calls.count()).toBe(2);
    // Each end reached its own call: neither row shows the other's file.
    expect(await calls.nth(0).textContent()).toContain('first.txt');
    expect(await calls.nth(0).textContent()).not.toContain('second.txt');
    expect(await calls.nth(1).textContent()).toContain('second.txt');
    expect(await calls.nth(1).textContent()).not.toContain('first.txt');
    expect(await calls.getByText('tool-error').count()).toBe(2);
  });

  it('shows a held call of 100 KiB by its size, head and tail, and allows it only once shown whole', async () => {
    const page = await bed.signedInPage(BEARER_TOKEN, bed.url, '#/approvals');
    const id = await startTurn('BIG big.txt');
    const size = Buffer.byteLength(JSON.stringify({ path: 'big.txt', content: BIG_CONTENT })).toLocaleString(
      'en-US',
    );
    const card = page.getByRole('article', { name: 'Writing big.txt' });
    await card.waitFor();
    await card.getByRole('heading', { name: `Arguments (${size} bytes, not all shown)` }).waitFor();
    // The head and the tail, the run of spaces named by its length, and no way to allow yet.
    expect(await card.locator('pre[title="Start of the arguments"]').textContent()).toMatch(
      /^\{"path":"big\.txt","content":"harmless start\[4,0\d\d spaces\]$/,
    );
    expect(await card.locator('pre[title="End of the arguments"]').textContent()).toMatch(
      /^\[4,0\d\d spaces\]hidden tail\\n"\}$/,
    );
    const allow = card.getByRole('button', { name: 'Allow' });
    expect(await allow.isDisabled()).toBe(true);
    await bed.screenshot(page, 'approval-large-arguments');

    await card.getByRole('button', { name: `Show all ${size} bytes` }).click();
    await card.getByRole('heading', { name: `Arguments (${size} bytes, all shown)` }).waitFor();
    const whole = await card.locator('pre[title="Arguments of write_file"]').textContent();
    expect(whole).toContain('"content": "harmless start[102,400 spaces]hidden tail\\n"');
    expect(await allow.isDisabled()).toBe(false);
    await allow.click();
    expect(
      await waitFor('the turn to end', async () =>
        (await turnStatus(id)) === 'completed' ? true : undefined,
      ),
    ).toBe(true);
    // What ran is exactly what was shown and stored: the whole content, tail included.
    const written = await readFile(path.join(bed.daemon.folder, 'homes', 'console', 'big.txt'), 'utf8');
    expect(written).toBe(BIG_CONTENT);
  });

  it('allows a held call from the Approvals page, with a badge counting it, and the turn finishes', async () => {
    const page = await bed.signedInPage(BEARER_TOKEN);
    const id = await startTurn('WRITE approved.txt');
    // The badge, on every page, live.
    await page.getByRole('link', { name: 'Approvals 1 pending' }).click();
    const card = page.getByRole('article', { name: 'Writing approved.txt' });
    await card.waitFor();
    expect(await card.getByRole('link', { name: id }).count()).toBe(1);
    expect(await card.locator('.held-arguments pre').textContent()).toContain('"content": "approved\\n"');
    await card.getByLabel('Reason').fill('looks right');
    await bed.screenshot(page, 'approvals');
    await card.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('No call is waiting for an answer.').waitFor();
    await page.getByRole('link', { name: 'Approvals', exact: true }).waitFor();
    expect(
      await waitFor('the turn to end', async () =>
        (await turnStatus(id)) === 'completed' ? true : undefined,
      ),
    ).toBe(true);
    // The turn's page shows the approval in place, answered with its reason, and the written file.
    await page.goto(`${bed.url}/#/turns/${id}`);
    await page.getByText('Approval allowed by console: Writing approved.txt — looks right').waitFor();
    await page.getByText('Wrote 1 line to approved.txt').first().waitFor();
    // Answered: the request no longer sends the operator to the Approvals page.
    expect(await page.getByRole('link', { name: 'answer it on the Approvals page' }).count()).toBe(0);
  });

  it('hides every control from the read-only token, which cannot answer either; full access cancels', async () => {
    const id = await startTurn('WRITE refused.txt');
    const approval = await pendingApproval(id);
    const reader = await bed.signedInPage(READ_ONLY_TOKEN, bed.url, '#/approvals');
    expect(await reader.getByText('Read-only').count()).toBe(1);
    const card = reader.getByRole('article', { name: 'Writing refused.txt' });
    await card.waitFor();
    expect(await card.getByRole('button').count()).toBe(0);
    expect(await card.getByLabel('Reason').count()).toBe(0);
    await reader.goto(`${bed.url}/#/turns/${id}`);
    await reader.getByText('waiting-approval').first().waitFor();
    expect(await reader.getByRole('button', { name: 'Cancel turn' }).count()).toBe(0);
    // What the page would send, from the page, with the tab's token: the daemon refuses it.
    const token = await bed.storedToken(reader);
    expect(token).toBe(READ_ONLY_TOKEN);
    const refused = await reader.evaluate(
      async ({ approvalId, token }) => {
        const response = await fetch(`/v1/approvals/${approvalId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ decision: 'allow' }),
        });
        return { status: response.status, body: (await response.json()) as { error: { code: string } } };
      },
      { approvalId: approval.id, token },
    );
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'read_only_token' } } });
    expect(await turnStatus(id)).toBe('waiting-approval');

    // With full access the same page cancels the turn.
    const operator = await bed.signedInPage(BEARER_TOKEN, bed.url, `#/turns/${id}`);
    await operator.getByRole('button', { name: 'Cancel turn' }).click();
    await operator.locator('dl.facts').getByText('aborted').waitFor();
    expect(await operator.getByRole('button', { name: 'Cancel turn' }).count()).toBe(0);
    expect(await turnStatus(id)).toBe('aborted');
  });

  it('filters the list by status and source, and pages to older turns with the cursor', async () => {
    // Enough turns for a second page (20 a page), all ended before the page opens.
    const ids = await Promise.all(Array.from({ length: 20 }, (_, index) => startTurn(`hello ${index}`)));
    await waitFor('the turns to end', async () => {
      const statuses = await Promise.all(ids.map(turnStatus));
      return statuses.every((status) => status === 'completed') ? true : undefined;
    });
    const listed = await requestJson(`${bed.url}/v1/turns?limit=100`, { token: BEARER_TOKEN });
    const all = listed.body.turns as Array<{ id: string; status: string }>;
    expect(all.length).toBeGreaterThan(20);

    const page = await bed.signedInPage(BEARER_TOKEN);
    const rows = page.getByRole('table').getByRole('row');
    await turnRow(page, all[0]?.id ?? '').waitFor();
    expect(await rows.count()).toBe(1 + 20);
    await page.getByRole('button', { name: 'Load older turns' }).click();
    await turnRow(page, all.at(-1)?.id ?? '').waitFor();
    expect(await rows.count()).toBe(1 + all.length);
    expect(await page.getByRole('button', { name: 'Load older turns' }).count()).toBe(0);

    // The cancelled turn of the test before is the only aborted one.
    const aborted = all.filter((turn) => turn.status === 'aborted');
    expect(aborted).toHaveLength(1);
    await page.getByLabel('Status').selectOption('aborted');
    await turnRow(page, aborted[0]?.id ?? '').waitFor();
    await waitFor('the filtered list', async () => ((await rows.count()) === 2 ? true : undefined));
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Source').selectOption('schedule');
    await page.getByText('No turns recorded for source schedule.').waitFor();
    expect(await rows.count()).toBe(1);
  });

  it('shows the live stream reconnecting after it broke, then live again with what it missed', async () => {
    const page = await bed.newPage();
    // The daemon is real; only the tab's connection to `/v1/events` is cut until the page says so.
    let cut = true;
    await page
      .context()
      .route('**/v1/events', (route) => (cut ? route.abort('connectionreset') : route.continue()));
    await page.goto(`${bed.url}/#/turns`);
    await page.getByLabel('Bearer or read-only token').fill(BEARER_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/^reconnecting…/).waitFor();
    await page.getByRole('table').waitFor();
    const id = await startTurn('hello while cut');
    await waitFor('the turn to end', async () => ((await turnStatus(id)) === 'completed' ? true : undefined));
    cut = false;
    await page.getByText('live', { exact: true }).waitFor();
    // Reopened, the list reloads: the turn that ran while it was cut is there.
    await turnRow(page, id).getByText('completed').waitFor();
  });

  it('reconnects and reloads when the daemon ends its stream because the page fell behind', async () => {
    const page = await bed.signedInPage(BEARER_TOKEN);
    await page.getByText('live', { exact: true }).waitFor();
    let streams = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/v1/events')) streams += 1;
    });
    // The page's thread stops (as in a tab the browser froze): a synchronous request it sends is
    // answered only when the test says so, and until then the page reads nothing.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/hold-the-page', async (route) => {
      // Counted from the moment the page is held: a stream it reopened before (a busy machine can
      // make it reconnect while it settles) is not the one this test is about.
      streams = 0;
      await released;
      await route.fulfill({ status: 204 });
    });
    const held = page.evaluate(() => {
      // The page's own global, typed here without the DOM library the tests do not load.
      const Request = (
        globalThis as unknown as {
          XMLHttpRequest: new () => { open(method: string, url: string, async: boolean): void; send(): void };
        }
      ).XMLHttpRequest;
      const request = new Request();
      request.open('GET', '/hold-the-page', false);
      request.send();
    });
    // Turns of text in small deltas until the daemon logs that it cut the page's stream off (the
    // browser's and the kernel's buffers take some megabytes first); the page is released soon after,
    // well within the 30 s the daemon then gives it to take the overflow event before it closes the
    // connection (which would make the page reconnect without knowing why).
    const cutsBefore = cutOffs();
    for (let index = 0; cutOffs() === cutsBefore; index += 1) {
      expect(index, 'the daemon never cut the held page off').toBeLessThan(LONG_TURNS_AT_MOST);
      const long = await startTurn(`LONG ${LONG_TURN_CHARACTERS}`);
      // It ends before the page is released, cut off or not: its deltas would go on to the stream the
      // page opens next, which it reads while it reloads, and could fall behind on again.
      await waitFor('the long turn to end', async () =>
        (await turnStatus(long)) === 'completed' ? true : undefined,
      );
    }
    expect(cutOffs()).toBe(cutsBefore + 1);
    // Its events come after the daemon cut the stream off: only a reload shows this turn.
    const missed = await startTurn('after the cut');
    await waitFor('the turn to end', async () =>
      (await turnStatus(missed)) === 'completed' ? true : undefined,
    );
    expect(streams).toBe(0);
    release();
    await held;
    // Running again, the page reads on to the daemon's overflow event, opens a new stream and reloads.
    await page.getByText(/^live \(reloaded: this page fell more than 65.536 bytes behind/).waitFor();
    await turnRow(page, missed).getByText('completed').waitFor();
    expect(streams).toBe(1);
  });

  it('shows the daemon’s error for a turn it does not know, and stops following it', async () => {
    const page = await bed.signedInPage(
      BEARER_TOKEN,
      bed.url,
      '#/turns/turn_00000000-0000-4000-8000-000000000000',
    );
    await page.getByRole('alert').first().waitFor();
    expect(await page.getByRole('alert').first().textContent()).toContain(
      "no turn 'turn_00000000-0000-4000-8000-000000000000'",
    );
    await page.getByText(/^not following \(/).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel turn' }).count()).toBe(0);
  });

  it('needs no sign-in from a daemon without tokens on loopback', async () => {
    const open = await bed.openDaemon();
    const page = await bed.signedInPage(undefined, open.url);
    await page.getByRole('heading', { name: 'Turns', level: 1 }).waitFor();
    expect(await page.getByText('Full access').count()).toBe(1);
    expect(await page.getByLabel('Bearer or read-only token').count()).toBe(0);
    expect(await bed.storedToken(page)).toBeNull();
  });
});
