import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { type FakeResponsesServer, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../__fixtures__/run-cli';
import { promptOf } from '../__fixtures__/scripted-model';
import { RUNNING_DAEMON_FILE } from '../running-daemon';
import { rawRequest, requestJson, waitFor, waitForTurnEnd } from './__fixtures__/http-client';
import { ServeFolder } from './__fixtures__/serve-folder';
import type { ServeProcess } from './__fixtures__/serve-process';

/** `rawRequest` with the answer's JSON parsed. */
async function rawJson(
  url: string,
  path: string,
  init: Parameters<typeof rawRequest>[2],
): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await rawRequest(url, path, init);
  return { status: answer.status, body: answer.text === '' ? {} : JSON.parse(answer.text) };
}

describe('pnpm switchyard serve in an empty folder (embedded PGlite, no configuration file)', () => {
  let folder: ServeFolder;
  let fake: FakeResponsesServer;
  let serve: ServeProcess;
  let url: string;
  const home = () => path.join(folder.path, '.switchyard/homes/main');

  beforeAll(async () => {
    folder = await ServeFolder.create('fresh', 'none');
    fake = await folder.startFakeModel({
      script: (request) => {
        const prompt = promptOf(request);
        if (prompt.startsWith('fail'))
          return { httpStatus: 400, message: 'the fake model refuses this prompt' };
        if (request.functionCallOutputs.length > 0) return { text: 'Done.' };
        return toolCallStep('write_file', { path: `${prompt}.txt`, content: 'hi\n' });
      },
    });
    ({ serve, url } = await folder.startOnFakeModel(
      fake,
      ['--port', '0'],
      { SWITCHYARD_CONFIG: '' },
      { cwd: folder.path, viaPnpm: true },
    ));
  }, 180_000);

  afterAll(() => folder?.remove(), 120_000);

  const finished = async (id: string) => (await waitForTurnEnd(url, id)).body;

  it('has the agent home before the first turn, and a write_file turn completes with the file on disk', async () => {
    expect(existsSync(home())).toBe(true);
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'hello' } });
    expect(started.status).toBe(202);
    const turn = await finished(started.body.id as string);
    expect(turn).toMatchObject({ status: 'completed', output: 'Done.', agent: 'main', source: 'api' });
    expect(await readFile(path.join(home(), 'hello.txt'), 'utf8')).toBe('hi\n');
  });

  it('makes a home removed while it runs again before the next turn', async () => {
    await rm(home(), { recursive: true, force: true });
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'again' } });
    expect(await finished(started.body.id as string)).toMatchObject({ status: 'completed' });
    expect(await readFile(path.join(home(), 'again.txt'), 'utf8')).toBe('hi\n');
  });

  it('logs a turn that fails on stderr: its id, agent, source and the first line of its error', async () => {
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'fail now' } });
    const id = started.body.id as string;
    expect(await finished(id)).toMatchObject({ status: 'failed' });
    await waitFor(
      'the failure in the log',
      () => (serve.log.includes(`turn ${id}`) ? true : undefined),
      10_000,
    );
    const line = serve.log.split('\n').find((entry) => entry.includes(`turn ${id}`)) ?? '';
    expect(line).toMatch(new RegExp(`^switchyard serve: turn ${id} of agent main \\(api\\) failed: .*400`));
  });

  describe('what a browser may send on another site’s behalf', () => {
    const port = () => new URL(url).port;
    const own = () => `127.0.0.1:${port()}`;
    const prompt = JSON.stringify({ prompt: 'cross' });

    it('refuses a cross-site text/plain form post, token or not, and runs nothing', async () => {
      const before = fake.requests.length;
      const answer = await rawJson(url, '/v1/turns', {
        headers: {
          host: own(),
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
          'sec-fetch-mode': 'no-cors',
          'content-type': 'text/plain;charset=UTF-8',
        },
        body: prompt,
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ error: { code: 'cross_site_request' } });
      // The same request from a page that omits Sec-Fetch-Site (an older browser) is refused by its Origin.
      const withoutFetchMetadata = await rawJson(url, '/v1/turns', {
        headers: { host: own(), origin: 'https://evil.example', 'content-type': 'text/plain' },
        body: prompt,
      });
      expect(withoutFetchMetadata.status).toBe(403);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(fake.requests.length).toBe(before);
    });

    it('refuses a foreign Host (DNS rebinding) with 421', async () => {
      const answer = await rawJson(url, '/v1/turns', {
        headers: { host: `rebind.evil.example:${port()}`, 'content-type': 'application/json' },
        body: prompt,
      });
      expect(answer.status).toBe(421);
      expect(answer.body).toMatchObject({ error: { code: 'misdirected_request' } });
      const health = await rawJson(url, '/healthz', {
        method: 'GET',
        headers: { host: `rebind.evil.example:${port()}` },
      });
      expect(health.status).toBe(421);
    });

    it('refuses a curl-like body that is not declared JSON with 415', async () => {
      const answer = await rawJson(url, '/v1/turns', {
        headers: { host: own(), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'prompt=hello',
      });
      expect(answer.status).toBe(415);
      expect(answer.body).toMatchObject({ error: { code: 'unsupported_media_type' } });
    });

    it('serves same-host JSON from a non-browser client and from its own page', async () => {
      const curl = await rawJson(url, '/v1/turns', {
        headers: { host: `localhost:${port()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'curl' }),
      });
      expect(curl.status).toBe(202);
      const page = await rawJson(url, '/v1/turns', {
        headers: {
          host: own(),
          origin: `http://${own()}`,
          'sec-fetch-site': 'same-origin',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ prompt: 'page' }),
      });
      expect(page.status).toBe(202);
      await finished(curl.body.id as string);
      await finished(page.body.id as string);
    });
  });

  it('keeps its embedded database to itself: a second process is told which process holds it', async () => {
    // The CLI's read commands and approvals go through the daemon's API then (cli-beside-daemon.test.ts).
    const throughDaemon = await runCli(['turns', 'list'], { cwd: folder.path });
    expect(throughDaemon).toMatchObject({ code: 0, stderr: '' });
    expect(throughDaemon.stdout).toMatch(/^\d+ turns? of agent main, newest first:/);
    const answered = await runCli(['approvals', 'allow', 'approval_00000000-0000-0000-0000-000000000000'], {
      cwd: folder.path,
    });
    expect(answered.stderr).toBe(
      'switchyard: approvals allow: no approval approval_00000000-0000-0000-0000-000000000000\n',
    );
    expect(answered.code).toBe(1);
    // A process that opens the database itself (the daemon's file gone) is told which process holds it.
    await rm(path.join(folder.path, '.switchyard/db', RUNNING_DAEMON_FILE), { force: true });
    const listed = await runCli(['turns', 'list'], { cwd: folder.path });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(/is in use by process \d+ \(cli\.js serve --port 0\)/);
    expect(listed.stdout).toBe('');
  });

  it('releases the database when it stops, and the records then show every turn', async () => {
    await serve.terminate();
    await waitFor('the lock to be released', () =>
      existsSync(path.join(folder.path, '.switchyard/db/switchyard.lock')) ? undefined : true,
    );
    const listed = await runCli(['turns', 'list'], { cwd: folder.path });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^5 turns of agent main, newest first:/);
  }, 120_000);
});
