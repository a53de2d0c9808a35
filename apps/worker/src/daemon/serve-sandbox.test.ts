import { type FakeRequest, toolCallStep } from '@switchyard/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { outputsOf, promptOf } from '../__fixtures__/scripted-model';
import { requestJson, waitFor } from './__fixtures__/http-client';
import { ServeFolder } from './__fixtures__/serve-folder';
import { writeServeConfig } from './__fixtures__/serve-process';

// What `switchyard serve` says and refuses about the commands' sandbox, through real serve processes
// on embedded PGlite: no tokenless API a command could reach, the sandbox's state in /healthz, and
// the warning of a root worker.

const TOKEN = 'a-bearer-token-for-the-sandbox-tests';

/** A command that calls the daemon's API from inside run_command, without a token. */
function reachApi(url: string): string {
  return `node -e "fetch('${url}/v1/approvals').then((r) => console.log('STATUS', r.status), (e) => console.log('UNREACHABLE', e.cause?.code ?? e.message))"`;
}

/** A serve process whose model runs `reachApi(<its own URL>)` through run_command for any prompt. */
async function serveReachingItself(
  folders: ServeFolder[],
  settings: Record<string, unknown>,
  environment: Record<string, string> = {},
) {
  const folder = await ServeFolder.create('sandbox-serve', 'pglite');
  folders.push(folder);
  const config = await folder.writeConfig(settings);
  let url = '';
  const fake = await folder.startFakeModel({
    script: (request) =>
      outputsOf(request).length > 0
        ? { text: 'done' }
        : toolCallStep('run_command', { command: reachApi(url) }),
  });
  const started = await folder.startOnFakeModel(fake, ['--port', '0', '--config', config], environment);
  url = started.url;
  /** Runs one turn and resolves with its run_command's output. */
  const commandOutput = async (token?: string) => {
    const turn = await requestJson(`${url}/v1/turns`, {
      body: { prompt: 'call the api' },
      ...(token === undefined ? {} : { token }),
    });
    expect(turn.status, JSON.stringify(turn.body)).toBe(202);
    await waitFor('the turn to end', async () => {
      const answer = await requestJson(
        `${url}/v1/turns/${turn.body.id as string}`,
        token === undefined ? {} : { token },
      );
      return answer.body.status === 'running' ? undefined : answer;
    });
    const answered = fake.requests.find(
      (request: FakeRequest) =>
        promptOf(request) === 'call the api' && request.functionCallOutputs.length > 0,
    );
    return outputsOf(answered as FakeRequest)[0] ?? '';
  };
  return { url, serve: started.serve, commandOutput };
}

describe('switchyard serve and the commands of its agents', () => {
  const folders: ServeFolder[] = [];
  afterAll(async () => {
    await Promise.all(folders.map((folder) => folder.remove()));
  }, 120_000);

  it.each([
    ['every agent', { categories: { computer: { sandbox: { network: 'host' } } } }, 'main'],
    [
      'one agent of its own',
      { agents: { ops: { computer: { sandbox: { network: 'host' } } } }, serve: { agents: ['main', 'ops'] } },
      'ops',
    ],
  ])("refuses to start without a token when %s's commands get the worker's network", async (_who, settings, agent) => {
    // Refused before any database is opened: the folder has none.
    const folder = await ServeFolder.create('sandbox-refuse', 'none');
    folders.push(folder);
    const config = await writeServeConfig(folder.path, settings);
    const serve = folder.start(['--port', '0', '--config', config], {
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      SWITCHYARD_MODEL: 'fake-model',
    });
    expect(await serve.exited).not.toBe(0);
    expect(serve.log).toContain('serve.token');
    expect(serve.log).toContain(`agent ${agent}'s commands run in a sandbox with the worker's network`);
    expect(serve.log).not.toContain('listening on');
  });

  it("with network 'none' and no token: a command cannot reach the API, /healthz says commands are sandboxed", async () => {
    const { url, serve, commandOutput } = await serveReachingItself(folders, {});
    const output = await commandOutput();
    expect(output).toContain('UNREACHABLE ECONNREFUSED');
    expect(output).not.toContain('STATUS');
    const health = await requestJson(`${url}/healthz`);
    expect(health.body.sandbox).toMatchObject({ state: 'sandboxed' });
    expect((health.body.sandbox as { summary: string }).summary).toContain('network none');
    // The warning of a root worker is printed when, and only when, the worker is root.
    expect(serve.log.includes('warning: running as root')).toBe(process.getuid?.() === 0);
  }, 180_000);

  it("with network 'host' and a token: a command reaching the API without it is refused (401)", async () => {
    const { url, commandOutput } = await serveReachingItself(
      folders,
      { categories: { computer: { sandbox: { network: 'host' } } } },
      { SWITCHYARD_SERVE_TOKEN: TOKEN },
    );
    const output = await commandOutput(TOKEN);
    expect(output).toContain('STATUS 401');
    const health = await requestJson(`${url}/healthz`);
    expect((health.body.sandbox as { summary: string }).summary).toContain('network host');
  }, 180_000);

  it('with the sandbox off (and a token): /healthz says commands are not sandboxed', async () => {
    const { url } = await serveReachingItself(
      folders,
      { categories: { computer: { sandbox: 'off' } } },
      { SWITCHYARD_SERVE_TOKEN: TOKEN },
    );
    const health = await requestJson(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body.sandbox).toEqual({
      state: 'off',
      summary: "commands are not sandboxed: the sandbox mode is 'off'",
    });
  }, 180_000);
});
