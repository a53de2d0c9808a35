import type { ControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import { postgresTitle, postgresUrl } from '@switchyard/test-databases';
import type { FakeResponsesServer } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf } from '../__fixtures__/scripted-model';
import { rawRequest, readEventStream, requestJson, waitFor } from './__fixtures__/http-client';
import { ServeFolder } from './__fixtures__/serve-folder';
import { ServeProcess } from './__fixtures__/serve-process';

/** The configuration of these tests' processes: the schedule category, on the folder's database. */
function writeConfig(folder: ServeFolder, serve?: Record<string, unknown>): Promise<string> {
  return folder.writeConfig({ categories: { schedule: {} }, ...(serve === undefined ? {} : { serve }) });
}

describe('switchyard serve refuses to listen off loopback without a token', () => {
  it('exits 2 naming serve.token and the variable to set', async () => {
    const serve = new ServeProcess(['--host', '0.0.0.0', '--port', '0'], {
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      SWITCHYARD_MODEL: 'fake-model',
      SWITCHYARD_CONFIG: '',
    });
    expect(await serve.exited).toBe(2);
    expect(serve.log).toContain(
      'switchyard: Invalid configuration: serve.token: a bearer token is required to listen on 0.0.0.0 (not a loopback address): set SWITCHYARD_SERVE_TOKEN',
    );
  });
});

/**
 * `serve` flags, each with its value: one agent, a free port, fast ticks and polls, and a grace period
 * of 2 s: the drain that answers 503 lasts that long, so a health poll sees it however slow a loaded
 * machine makes each request.
 */
function serveArgs(config: string): string[] {
  const flags = {
    '--config': config,
    '--agent': 'ada',
    '--port': '0',
    '--grace-ms': '2000',
    '--tick-ms': '200',
    '--poll-seconds': '0.5',
  };
  return Object.entries(flags).flat();
}

describe('switchyard serve (a real child process on embedded PGlite): SIGTERM during a turn', () => {
  let folder: ServeFolder;
  let server: FakeResponsesServer;

  beforeAll(async () => {
    folder = await ServeFolder.create('serve', 'pglite');
    // The model never answers this turn's first request: the turn is running when SIGTERM comes.
    server = await folder.startFakeModel({
      script: () => ({ delayMs: 60_000, text: 'too late' }),
    });
  }, 180_000);

  afterAll(() => folder?.remove(5_000), 180_000);

  it('cancels the running scheduled turn after the grace period, records it for retry, and exits 0', async () => {
    // Set up the schedule first (PGlite is one process's database), then hand the directory over.
    let controlPlane: ControlPlane = await folder.openControlPlane();
    const schedule = await controlPlane.schedules.createSchedule({
      agentId: 'ada',
      name: 'slow',
      prompt: 'a slow scheduled turn',
      // Due before the process is up: a slot missed while no worker ran fires when one starts.
      runAt: new Date(Date.now() + 1_500).toISOString(),
    });
    await controlPlane.close();

    const config = await writeConfig(folder);
    // With a health listener of its own (--health-port): probes there see the same state.
    const serve = folder.start([...serveArgs(config), '--health-port', '0'], {
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'test',
    });
    const url = await serve.ready;
    // Logged right after the API's line, possibly in a later chunk of stderr.
    const healthUrl = await waitFor(
      "the health listener's log line",
      () => /health checks on (http:\/\/\S+)/.exec(serve.log)?.[1],
      10_000,
    );
    expect(healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/healthz$/);
    expect(new URL(healthUrl).port).not.toBe(new URL(url).port);
    await waitFor('the scheduled turn to reach the model', () =>
      server.requests.some((request) => promptOf(request) === 'a slow scheduled turn') ? true : undefined,
    );
    // An API turn running at the same time is cancelled too.
    const apiTurn = await requestJson(`${url}/v1/turns`, { body: { prompt: 'an API turn' } });
    expect(apiTurn.status).toBe(202);
    await waitFor('the API turn to reach the model', () =>
      server.requests.some((request) => promptOf(request) === 'an API turn') ? true : undefined,
    );

    // The health port answers /healthz as the API does, and nothing else of the API.
    const health = await requestJson(healthUrl);
    expect(health).toMatchObject({ status: 200, body: { status: 'serving', runningTurns: 2 } });
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect((await requestJson(`${url}/healthz`)).body).toEqual(health.body);
    const healthBase = new URL(healthUrl).origin;
    expect(await requestJson(`${healthBase}/v1/turns`)).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    const posted = await requestJson(healthUrl, { body: {} });
    expect(posted).toMatchObject({ status: 405, body: { error: { code: 'method_not_allowed' } } });
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    // The API's request guard applies: a foreign Host (DNS rebinding) is refused.
    const foreign = await rawRequest(healthBase, '/healthz', { headers: { host: 'evil.example:80' } });
    expect(foreign.status).toBe(421);
    expect(JSON.parse(foreign.text)).toMatchObject({ error: { code: 'misdirected_request' } });

    // Polled from before SIGTERM until the process is gone: draining answers 503, then the port closes.
    const statuses: Array<number | 'closed'> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        statuses.push(
          await fetch(healthUrl).then(
            (answer) => answer.status,
            () => 'closed' as const,
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    await waitFor('a first poll', () => (statuses.length > 0 ? true : undefined));
    expect(await serve.terminate()).toBe(0);
    polling = false;
    await poller;
    expect(statuses[0]).toBe(200);
    expect(statuses).toContain(503);
    expect(statuses.at(-1)).toBe('closed');
    expect(serve.log).toContain('SIGTERM received');
    expect(serve.log).toContain('draining (2 running turn(s), grace 2000 ms)');
    expect(serve.log).toContain('cancelling 2 turn(s)');
    expect(serve.log).toContain('stopped (0 finished, 2 cancelled)');

    // Recorded: the run failed with the reason, and its queue job waits for a retry: nothing lost.
    controlPlane = await folder.openControlPlane();
    try {
      const { rows: runs } = await queryControlPlane<{
        id: string;
        status: string;
        attempts: number;
        error: string;
      }>(
        controlPlane,
        'SELECT id, status, attempts, error FROM switchyard.schedule_runs WHERE schedule_id = $1',
        [schedule.id],
      );
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'failed', attempts: 1 });
      expect(runs[0]?.error).toMatch(/ended 'aborted': the worker shut down before the turn finished/);
      const { rows: jobs } = await queryControlPlane<{ state: string }>(
        controlPlane,
        'SELECT state FROM pgboss.job WHERE id = $1',
        [runs[0]?.id],
      );
      expect(jobs).toEqual([{ state: 'retry' }]);

      // Both turns are on record after the process is gone, with the reason and their event log.
      const apiRecord = await controlPlane.turns.get(String(apiTurn.body.id));
      expect(apiRecord).toMatchObject({
        source: 'api',
        prompt: 'an API turn',
        status: 'aborted',
        error: 'the worker shut down before the turn finished',
      });
      const apiEvents = (await controlPlane.turns.events(String(apiTurn.body.id)))?.events;
      expect(apiEvents?.at(-1)).toMatchObject({ type: 'turn-end', status: 'aborted' });
      const [scheduled] = await controlPlane.turns
        .list({ agentId: 'ada', status: 'aborted' })
        .then((records) => records.filter((record) => record.source === 'schedule'));
      expect(scheduled).toMatchObject({ sourceId: runs[0]?.id, prompt: 'a slow scheduled turn' });
    } finally {
      await controlPlane.close();
    }
  });

  it('with serve.resumeApiTurns false, marks an API turn cut off by SIGKILL interrupted when the next process starts', async () => {
    // Resumed from its journal by default (serve-durable-turns.test.ts): here the operator turned that off.
    const args = serveArgs(await writeConfig(folder, { resumeApiTurns: false }));
    const environment = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test' };
    const killed = folder.start(args, environment);
    const url = await killed.ready;
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'a turn about to be killed' } });
    const id = String(started.body.id);
    await waitFor('the turn to reach the model', () =>
      server.requests.some((request) => promptOf(request) === 'a turn about to be killed') ? true : undefined,
    );
    killed.child.kill('SIGKILL');
    expect(await killed.exited).toBe('SIGKILL');

    const next = folder.start(args, environment);
    const nextUrl = await next.ready;
    // This turn, and the scheduled run's retry if it had started in the killed process too.
    expect(next.log).toMatch(/marked [12] turn\(s\) interrupted \(their worker stopped\): /);
    expect(next.log).toContain(id);
    const record = await requestJson(`${nextUrl}/v1/turns/${id}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      id,
      status: 'interrupted',
      error: 'the worker running this turn stopped before the turn ended',
    });
    expect(typeof record.body.endedAt).toBe('string');
    const events = await readEventStream(`${nextUrl}/v1/turns/${id}/events`);
    expect(events.map((event) => event.data)).toEqual([
      {
        type: 'turn-end',
        status: 'interrupted',
        iterations: 0,
        usage: record.body.usage,
        error: 'the worker running this turn stopped before the turn ended',
      },
    ]);
    expect(await next.terminate()).toBe(0);
  });
});

describe.runIf(postgresUrl !== null)(`${postgresTitle}: several serve processes share the work`, () => {
  const PROCESSES = 2;
  const FLEET_TOKEN = 'fleet-token-0123456789abcdef';
  const ONE_SHOTS = 8;
  let folder: ServeFolder;
  let server: FakeResponsesServer;

  beforeAll(async () => {
    folder = await ServeFolder.create('serve-pg', 'postgres');
    server = await folder.startFakeModel({
      script: (request) => ({ delayMs: 400, text: `done: ${promptOf(request)}` }),
    });
  });

  afterAll(() => folder?.remove(10_000));

  it('runs each scheduled one-shot exactly once across the processes', async () => {
    const controlPlane = await folder.openControlPlane();
    // Due about when the processes start: their schedulers race to fire the same slots.
    const runAt = new Date(Date.now() + 3_000).toISOString();
    const prompts: string[] = [];
    try {
      for (let index = 0; index < ONE_SHOTS; index += 1) {
        prompts.push(`unit ${index}`);
        await controlPlane.schedules.createSchedule({
          agentId: 'fleet',
          name: `unit-${index}`,
          prompt: `unit ${index}`,
          runAt,
        });
      }
      // Everything from the configuration's serve section, listening off loopback with a token.
      const config = await writeConfig(folder, {
        host: '0.0.0.0',
        port: 0,
        agents: ['fleet'],
        tickMs: 200,
        pollSeconds: 0.5,
        tokenEnv: 'FLEET_TOKEN',
      });
      for (let index = 0; index < PROCESSES; index += 1) {
        folder.start(['--config', config], {
          OPENAI_BASE_URL: server.baseURL,
          OPENAI_API_KEY: 'test',
          FLEET_TOKEN,
        });
      }
      const urls = await Promise.all(folder.processes.map((serve) => serve.ready));
      for (const url of urls) {
        expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
        const local = url.replace('0.0.0.0', '127.0.0.1');
        expect((await requestJson(`${local}/v1/turns/turn_none`)).status).toBe(401);
        expect((await requestJson(`${local}/v1/turns/turn_none`, { token: FLEET_TOKEN })).status).toBe(404);
      }
      await waitFor(
        'every run to complete',
        async () => {
          const { rows } = await queryControlPlane<{ count: number }>(
            controlPlane,
            "SELECT count(*)::int AS count FROM switchyard.schedule_runs WHERE status = 'completed'",
          );
          return rows[0]?.count === ONE_SHOTS ? true : undefined;
        },
        90_000,
      );
      // Give a duplicate delivery, if there were one, time to reach the model.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const perPrompt = new Map<string, number>();
      for (const request of server.requests) {
        perPrompt.set(promptOf(request), (perPrompt.get(promptOf(request)) ?? 0) + 1);
      }
      expect([...perPrompt.entries()].sort()).toEqual(prompts.map((prompt) => [prompt, 1]).sort());
      const { rows: runs } = await queryControlPlane<{ attempts: number; count: number }>(
        controlPlane,
        'SELECT attempts, count(*)::int AS count FROM switchyard.schedule_runs GROUP BY attempts',
      );
      expect(runs).toEqual([{ attempts: 1, count: ONE_SHOTS }]);
    } finally {
      await controlPlane.close();
    }
    const codes = await Promise.all(folder.processes.map((serve) => serve.terminate()));
    expect(codes).toEqual(folder.processes.map(() => 0));
  });
});
