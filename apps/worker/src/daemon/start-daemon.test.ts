import type { ControlPlane, TurnRecord } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import { defineWorkerTool, type ResponsesModel } from '@switchyard/core';
import { type FakeResponsesServer, toolCallStep } from '@switchyard/testkit';
import { createScheduleTools } from '@switchyard/tools-schedule';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { promptOf } from '../__fixtures__/scripted-model';
import { DaemonTestBed } from './__fixtures__/daemon-test-bed';
import { readEventStream, requestJson, waitFor, waitForTurnEnd } from './__fixtures__/http-client';
import { toolCallThenAnswer } from './__fixtures__/turn-events';
import { compactEvents, type DaemonTurnEvent, type DaemonTurnSnapshot } from './daemon-turns';
import { type Daemon, startDaemon } from './start-daemon';
import type { WorkSource } from './work-source';

const TOKEN = 'a-long-enough-test-token-0123456789';

const lookUp = defineWorkerTool({
  name: 'look_up',
  description: 'Look a word up.',
  schema: z.object({ word: z.string() }),
  executionMode: 'parallel',
  isReadOnly: true,
  describeActivity: ({ word }) => `Looking up ${word}`,
  describeCompletedActivity: ({ word }) => `Looked up ${word}`,
  execute: ({ word }) => ({ content: `${word}: a small bird` }),
});

describe('startDaemon (embedded PGlite, fake Responses server over HTTP)', () => {
  let bed: DaemonTestBed;
  let controlPlane: ControlPlane;
  let server: FakeResponsesServer;
  let model: ResponsesModel;
  let daemon: Daemon;
  let guarded: Daemon;

  /** Polls the control plane's record of the turn `id` until `done` holds for it. */
  const recordOnceItHas = (what: string, id: string, done: (record: TurnRecord) => boolean) =>
    waitFor(what, async () => {
      const record = await controlPlane.turns.get(id);
      return record !== undefined && done(record) ? record : undefined;
    });

  beforeAll(async () => {
    bed = await DaemonTestBed.open({
      controlPlane: { turnRequests: { pollingIntervalSeconds: 0.5 } },
      script: (request) => {
        const prompt = promptOf(request);
        if (prompt.startsWith('look up ')) {
          if (request.functionCallOutputs.length === 0) {
            // Held back so the test subscribes while the turn runs.
            return { delayMs: 300, ...toolCallStep('look_up', { word: prompt.slice(8) }) };
          }
          return { text: `Found: ${String(request.functionCallOutputs[0]?.output)}` };
        }
        if (prompt.startsWith('slow ')) return { delayMs: 1_000, text: 'Slowly answered.' };
        if (prompt.startsWith('cut ')) return { text: 'The answer beg', finishReason: 'max_output_tokens' };
        return { text: `Echo: ${prompt}`, usage: { inputTokens: 11, outputTokens: 5 } };
      },
    });
    ({ controlPlane, server, model } = bed);
    daemon = await bed.startDaemon({
      agents: ['ada'],
      port: 0,
      scheduler: { intervalMs: 200 },
      tools: ({ agentId }) => [
        lookUp,
        ...createScheduleTools({ scheduleService: controlPlane.schedules, agentId }),
      ],
    });
    guarded = await bed.startDaemon({
      agents: ['bob'],
      port: 0,
      token: TOKEN,
      scheduler: false,
    });
  }, 180_000);

  afterAll(async () => {
    await bed?.close();
  }, 180_000);

  describe('schedule fires', () => {
    it('runs a one-shot that comes due as a turn against the model', async () => {
      const schedule = await controlPlane.schedules.createSchedule({
        agentId: 'ada',
        name: 'soon',
        prompt: 'scheduled hello',
        runAt: new Date(Date.now() + 1_500).toISOString(),
      });
      const turn = await waitFor('the scheduled turn to complete', () => {
        const request = server.requests.find((entry) => promptOf(entry) === 'scheduled hello');
        if (request === undefined) return undefined;
        return daemon.turns
          .list()
          .find((entry) => entry.source === 'schedule' && entry.status === 'completed');
      });
      expect(turn).toMatchObject({ agent: 'ada', output: 'Echo: scheduled hello', iterations: 1 });
      const { rows } = await waitFor('the run to be recorded completed', async () => {
        const result = await queryControlPlane<{ status: string; attempts: number; id: string }>(
          controlPlane,
          'SELECT id, status, attempts FROM switchyard.schedule_runs WHERE schedule_id = $1',
          [schedule.id],
        );
        return result.rows[0]?.status === 'completed' ? result : undefined;
      });
      expect(rows).toEqual([{ id: turn.sourceId, status: 'completed', attempts: 1 }]);
      // The turn is visible through the HTTP API too.
      expect((await requestJson(`${daemon.url}/v1/turns/${turn.id}`)).body).toMatchObject({
        status: 'completed',
        source: 'schedule',
      });
    });
  });

  describe('HTTP API on loopback without a token', () => {
    it('starts a turn and reports its status, output and usage', async () => {
      const started = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'hi there' } });
      expect(started.status).toBe(202);
      const id = String(started.body.id);
      expect(id).toMatch(/^turn_/);
      expect(started.headers.get('location')).toBe(`/v1/turns/${id}`);
      expect(started.body).toMatchObject({ agent: 'ada', source: 'api' });
      const done = await waitForTurnEnd(daemon.url, id);
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({
        id,
        status: 'completed',
        output: 'Echo: hi there',
        iterations: 1,
        usage: { inputTokens: 11, outputTokens: 5, totalTokens: 16 },
      });
      expect(typeof done.body.endedAt).toBe('string');
    });

    it('reports a turn whose final answer was cut off as incomplete, with the reason, and records it so', async () => {
      const started = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'cut this short' } });
      const id = String(started.body.id);
      const done = await waitForTurnEnd(daemon.url, id);
      expect(done.body).toMatchObject({
        status: 'incomplete',
        output: 'The answer beg',
        error: 'the final response was cut off (max_output_tokens)',
      });
      const recorded = await recordOnceItHas(
        'the end to be recorded',
        id,
        (record) => record.status !== 'running',
      );
      expect(recorded).toMatchObject({
        status: 'incomplete',
        error: 'the final response was cut off (max_output_tokens)',
      });
    });

    it('answers bad requests with clear JSON errors', async () => {
      const missing = await requestJson(`${daemon.url}/v1/turns`, { body: { agent: 'no such agent!' } });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({ code: 'invalid_body', fields: ['prompt', 'agent'] });
      const extra = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'x', model: 'y' } });
      expect(extra.body.error).toMatchObject({ fields: ['model'] });
      const otherAgent = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'x', agent: 'bob' } });
      expect(otherAgent.status).toBe(400);
      expect(String((otherAgent.body.error as { message: string }).message)).toContain("serves 'ada'");
      const notJson = await requestJson(`${daemon.url}/v1/turns`, { rawBody: '{"prompt":' });
      expect(notJson).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
      const huge = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'x'.repeat(70_000) } });
      expect(huge).toMatchObject({ status: 413, body: { error: { code: 'body_too_large' } } });
      const unknownTurn = await requestJson(`${daemon.url}/v1/turns/turn_nope`);
      expect(unknownTurn).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
      expect((await requestJson(`${daemon.url}/v2/else`)).status).toBe(404);
      const wrongMethod = await requestJson(`${daemon.url}/v1/turns`, { method: 'PUT' });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
      expect(wrongMethod.body.error).toMatchObject({ code: 'method_not_allowed' });
      expect((await requestJson(`${daemon.url}/v1/turns/turn_x`, { method: 'DELETE' })).status).toBe(405);
      expect(await requestJson(`${daemon.url}/healthz`)).toMatchObject({
        status: 200,
        body: { status: 'serving' },
      });
    });
  });

  describe('HTTP API with a bearer token', () => {
    it('refuses requests without the right token and serves those with it', async () => {
      const none = await requestJson(`${guarded.url}/v1/turns`, { body: { prompt: 'secret' } });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain('Bearer');
      expect(none.body.error).toMatchObject({ code: 'unauthorized' });
      const wrong = await requestJson(`${guarded.url}/v1/turns`, {
        body: { prompt: 'secret' },
        token: `${TOKEN}x`,
      });
      expect(wrong.status).toBe(401);
      expect((await requestJson(`${guarded.url}/v1/turns/turn_x`, { token: 'short' })).status).toBe(401);
      const right = await requestJson(`${guarded.url}/v1/turns`, {
        body: { prompt: 'secret' },
        token: TOKEN,
      });
      expect(right.status).toBe(202);
      expect(right.body.agent).toBe('bob');
      const done = await waitFor('the guarded turn', async () => {
        const answer = await requestJson(`${guarded.url}/v1/turns/${String(right.body.id)}`, {
          token: TOKEN,
        });
        return answer.body.status === 'completed' ? answer : undefined;
      });
      expect(done.body.output).toBe('Echo: secret');
      // Health stays open for probes.
      expect((await requestJson(`${guarded.url}/healthz`)).status).toBe(200);
    });

    it('refuses to listen off loopback without a token, naming the field', async () => {
      await expect(
        startDaemon({ controlPlane, model, agents: ['carol'], host: '0.0.0.0', port: 0, scheduler: false }),
      ).rejects.toThrow(
        /^Invalid configuration: serve\.token: a bearer token is required to listen on 0\.0\.0\.0/,
      );
      await expect(
        startDaemon({ controlPlane, model, agents: ['carol'], port: 0, token: 'short', scheduler: false }),
      ).rejects.toThrow(/serve\.token: expected a string of at least 16 characters/);
    });
  });

  describe('more work sources', () => {
    it("runs another source's units with that unit's own tools and cancellation", async () => {
      const units: Array<{ prompt: string; cancel?: boolean }> = [
        { prompt: 'look up heron' },
        { prompt: 'cancelled unit', cancel: true },
      ];
      const results: DaemonTurnSnapshot[] = [];
      let stopped = false;
      const source: WorkSource = {
        name: 'test-units',
        async start(runTurn) {
          for (const unit of units) {
            const signal = unit.cancel ? AbortSignal.abort(new Error('the job was cancelled')) : undefined;
            results.push(
              await runTurn({
                agentId: 'erin',
                prompt: unit.prompt,
                source: 'job',
                sourceId: `job-${results.length}`,
                ...(signal === undefined ? {} : { signal }),
                tools: () => [lookUp],
              }),
            );
          }
        },
        async stop() {
          stopped = true;
        },
      };
      const extra = await startDaemon({
        controlPlane,
        model,
        agents: ['erin'],
        port: 0,
        scheduler: false,
        // The daemon's own hook gives no tools: the unit's override must be what the turn used.
        tools: () => [],
        sources: [source],
      });
      try {
        expect(results[0]).toMatchObject({
          source: 'job',
          sourceId: 'job-0',
          status: 'completed',
          output: 'Found: heron: a small bird',
        });
        expect(results[1]).toMatchObject({ status: 'aborted', error: 'the job was cancelled' });
      } finally {
        await extra.stop();
      }
      expect(stopped).toBe(true);
    });
  });

  describe('server-sent events', () => {
    it('replays what happened so far, then streams live until turn-end', async () => {
      const started = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'look up wren' } });
      const id = String(started.body.id);
      // Subscribed while the first model request is still delayed: part replay, part live.
      const live = await readEventStream(`${daemon.url}/v1/turns/${id}/events`);
      const types = live.map((event) => event.event);
      expect(types[0]).toBe('turn-start');
      expect(types.at(-1)).toBe('turn-end');
      expect(types).toEqual([
        'turn-start',
        'model-request-start',
        'model-request-end',
        ...toolCallThenAnswer(types),
      ]);
      const end = live.find((event) => event.event === 'tool-call-end');
      expect(end?.data).toMatchObject({ activity: 'Looked up wren', outcome: 'completed' });
      expect(live.at(-1)?.data).toMatchObject({ type: 'turn-end', status: 'completed', iterations: 2 });
      // After the end, the stream replays the same events, each request's text deltas joined, and closes.
      const replay = await readEventStream(`${daemon.url}/v1/turns/${id}/events`);
      expect(replay.map((event) => event.data)).toEqual(
        compactEvents(live.map((event) => event.data as unknown as DaemonTurnEvent)),
      );
      expect(replay.filter((event) => event.event === 'text-delta')).toHaveLength(1);
      expect((await requestJson(`${daemon.url}/v1/turns/${id}`)).body.output).toBe(
        'Found: wren: a small bird',
      );
    });
  });

  describe('turn records', () => {
    /** Another daemon of agent ada on the same database (a daemon answers only its agents' turns). */
    let reader: Daemon;
    beforeAll(async () => {
      reader = await bed.startDaemon({ agents: ['ada'], port: 0, token: TOKEN, scheduler: false });
    });

    it('records every turn in the control plane, readable through any daemon of its agent on the database', async () => {
      const started = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'look up finch' } });
      const id = String(started.body.id);
      // Recorded as running before the API answered, on the record's clock.
      const recorded = await controlPlane.turns.get(id);
      expect(recorded).toMatchObject({ id, agentId: 'ada', source: 'api' });
      expect(started.body.createdAt).toBe(recorded?.createdAt);
      const live = await readEventStream(`${daemon.url}/v1/turns/${id}/events`);
      const record = await recordOnceItHas(
        'the end to be recorded',
        id,
        (found) => found.status === 'completed',
      );
      expect(record).toMatchObject({
        prompt: 'look up finch',
        output: 'Found: finch: a small bird',
        iterations: 2,
        workerId: daemon.turns.workerId,
        eventsDropped: 0,
      });
      // The stored log joins each request's text deltas: the same events, the same text.
      const stored = (await controlPlane.turns.events(id))?.events as Array<Record<string, unknown>>;
      const text = (events: Array<Record<string, unknown>>) =>
        events
          .filter((event) => event.type === 'text-delta')
          .map((event) => event.delta)
          .join('');
      const liveData = live.map((event) => event.data);
      expect(text(stored)).toBe(text(liveData));
      expect(stored.filter((event) => event.type === 'text-delta')).toHaveLength(1);
      expect(stored.filter((event) => event.type !== 'text-delta')).toEqual(
        liveData.filter((event) => event.type !== 'text-delta'),
      );

      // Another daemon on the same database never ran it: it answers from the records. One that
      // does not serve the agent answers 404.
      expect(reader.turns.get(id)).toBeUndefined();
      expect((await requestJson(`${guarded.url}/v1/turns/${id}`, { token: TOKEN })).status).toBe(404);
      const elsewhere = await requestJson(`${reader.url}/v1/turns/${id}`, { token: TOKEN });
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.body).toMatchObject({
        id,
        agent: 'ada',
        status: 'completed',
        output: 'Found: finch: a small bird',
        iterations: 2,
      });
      const replayed = await readEventStream(`${reader.url}/v1/turns/${id}/events`, TOKEN);
      expect(replayed.map((event) => event.data)).toEqual(stored);
    });

    it('journals each response and call before moving on, and nothing with journal false', async () => {
      const lookUpEnded = async (on: Daemon, token?: string) => {
        const started = await requestJson(`${on.url}/v1/turns`, {
          body: { prompt: 'look up wren' },
          ...(token === undefined ? {} : { token }),
        });
        const id = String(started.body.id);
        await recordOnceItHas('the end to be recorded', id, (found) => found.status === 'completed');
        return id;
      };
      const journaled = await controlPlane.journals.read(await lookUpEnded(daemon));
      expect(journaled.responses.map((response) => response.iteration)).toEqual([1, 2]);
      expect(journaled.started).toMatchObject([{ key: 'look_up', itemIndex: 1 }]);
      expect(journaled.outputs).toMatchObject([
        { itemIndex: 1, output: { type: 'function_call_output', output: 'wren: a small bird' } },
      ]);
      const unjournaled = await bed.startDaemon({
        agents: ['ada'],
        port: 0,
        token: TOKEN,
        scheduler: false,
        journal: false,
      });
      const none = await controlPlane.journals.read(await lookUpEnded(unjournaled, TOKEN));
      expect(none).toEqual({ responses: [], started: [], outputs: [] });
    });

    it('follows a turn running in another daemon until it ends, then sends its recorded events', async () => {
      const started = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'look up robin' } });
      const id = String(started.body.id);
      // The first model request is held back 300 ms: the turn is running in `daemon` now.
      const followed = await readEventStream(`${reader.url}/v1/turns/${id}/events`, TOKEN);
      expect(followed.map((event) => event.event)).toContain('tool-call-end');
      expect(followed.at(-1)?.data).toMatchObject({ type: 'turn-end', status: 'completed' });
      expect((await controlPlane.turns.get(id))?.status).toBe('completed');
    });

    it("heartbeats its running turns and marks a dead worker's turns interrupted once they go stale", async () => {
      const logs: string[] = [];
      const watcher = await startDaemon({
        controlPlane,
        model,
        agents: ['erin'],
        port: 0,
        scheduler: false,
        heartbeatMs: 100,
        staleTurnMs: 1_000,
        // Marked, not resumed (serve-durable-turns.test.ts resumes them, the default).
        resumeApiTurns: false,
        log: (line) => logs.push(line),
      });
      try {
        // Another process's turns: one whose heartbeats stopped a minute ago, one heartbeating (its
        // last heartbeat is set ahead, so it stays fresh however slow this machine is).
        for (const id of ['turn_dead_worker', 'turn_live_worker']) {
          await controlPlane.turns.recordStart({
            id,
            agentId: 'erin',
            source: 'api',
            prompt: id,
            workerId: 'worker_elsewhere',
          });
        }
        await queryControlPlane(
          controlPlane,
          "UPDATE switchyard.turns SET heartbeat_at = now() - interval '1 minute' WHERE id = 'turn_dead_worker'",
        );
        await queryControlPlane(
          controlPlane,
          "UPDATE switchyard.turns SET heartbeat_at = now() + interval '1 hour' WHERE id = 'turn_live_worker'",
        );
        // A turn of this process, held by the model for a second: heartbeats refresh it meanwhile.
        const own = await requestJson(`${watcher.url}/v1/turns`, { body: { prompt: 'slow answer' } });
        const dead = await recordOnceItHas(
          'the dead worker turn to be marked',
          'turn_dead_worker',
          (record) => record.status === 'interrupted',
        );
        expect(dead.error).toBe('the worker running this turn stopped before the turn ended');
        expect(logs.join('\n')).toContain(
          'marked 1 turn(s) interrupted (their worker stopped): turn_dead_worker',
        );
        expect((await controlPlane.turns.get('turn_live_worker'))?.status).toBe('running');
        const ownRecord = await recordOnceItHas(
          'the own turn to end',
          String(own.body.id),
          (record) => record.status !== 'running',
        );
        expect(ownRecord?.status).toBe('completed');
        expect(Date.parse(ownRecord?.heartbeatAt ?? '')).toBeGreaterThan(
          Date.parse(ownRecord?.createdAt ?? ''),
        );
      } finally {
        await watcher.stop();
        await controlPlane.turns.recordEnd({
          id: 'turn_live_worker',
          status: 'completed',
          output: '',
          usage: {
            inputTokens: 0,
            cachedInputTokens: 0,
            outputTokens: 0,
            reasoningTokens: 0,
            totalTokens: 0,
          },
          iterations: 0,
        });
      }
    });

    it('refuses a turn it cannot record, and runs nothing', async () => {
      const requestsBefore = server.requests.length;
      // A real write failure, for this agent's turns only.
      await queryControlPlane(
        controlPlane,
        `
        CREATE FUNCTION switchyard.test_refuse_dora() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$`,
      );
      await queryControlPlane(
        controlPlane,
        `
        CREATE TRIGGER test_refuse_dora BEFORE INSERT ON switchyard.turns FOR EACH ROW
        WHEN (NEW.agent_id = 'dora') EXECUTE FUNCTION switchyard.test_refuse_dora()`,
      );
      const failing = await startDaemon({
        controlPlane,
        model,
        agents: ['dora'],
        port: 0,
        scheduler: false,
      });
      try {
        const refused = await requestJson(`${failing.url}/v1/turns`, { body: { prompt: 'unrecorded' } });
        expect(refused.status).toBe(503);
        expect(refused.body.error).toMatchObject({ code: 'unavailable' });
        // A prompt the records cannot store is the client's to fix: 400 naming the field.
        const nul = await requestJson(`${daemon.url}/v1/turns`, { body: { prompt: 'a\u0000b' } });
        expect(nul.status).toBe(400);
        expect(nul.body.error).toMatchObject({ code: 'invalid_body', fields: ['prompt'] });
        expect(failing.turns.list()).toEqual([]);
        expect(server.requests.slice(requestsBefore).map(promptOf)).not.toContain('unrecorded');
      } finally {
        await failing.stop();
        await queryControlPlane(controlPlane, 'DROP TRIGGER test_refuse_dora ON switchyard.turns');
      }
    });
  });
});
