import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ModelRequestError } from '@switchyard/core';
import { startFakeResponsesServer } from '@switchyard/testkit';
import { describe, expect, it, vi } from 'vitest';
import { closedAfterEach, MODEL_SETTINGS } from '../__fixtures__/model-settings';
import type { ModelEndpoint } from '../config/resolve-model-endpoint';
import type { ModelRequest } from './model-thread-protocol';
import { startThreadedModel } from './threaded-model';
import { createWorkerModel } from './worker-model';

const closers = closedAfterEach();
const SETTINGS = MODEL_SETTINGS;

const endpointAt = (baseURL: string): ModelEndpoint => ({ model: 'fake-model', baseURL, apiKey: 'test' });

/** A request of a turn's first iteration; its text deltas go to `deltas`. */
function requestOf(text: string, deltas: string[] = [], signal?: AbortSignal): ModelRequest {
  return {
    items: [{ role: 'user', content: text }],
    pendingFrom: 0,
    previousResponseId: undefined,
    instructions: 'Be brief.',
    tools: [
      {
        type: 'function',
        name: 'read_file',
        description: 'Reads a file.',
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        strict: true,
      },
    ],
    signal,
    onTextDelta: (delta) => deltas.push(delta),
  };
}

async function started(...args: Parameters<typeof startThreadedModel>) {
  const model = await startThreadedModel(...args);
  closers.push(() => model.close());
  return model;
}

describe('startThreadedModel: the configured model, its requests made on a thread of their own', () => {
  it('answers as the model made in the process does: the same response, the same text', async () => {
    const answer = {
      id: 'resp_same',
      text: 'Reading it now, then I will answer.',
      textChunks: 5,
      functionCalls: [{ name: 'read_file', arguments: { path: 'a.txt' }, callId: 'call_1' }],
    };
    const server = await startFakeResponsesServer({ script: [answer, answer] });
    closers.push(() => server.close());
    const threadDeltas: string[] = [];
    const localDeltas: string[] = [];
    const threaded = await started(SETTINGS, endpointAt(server.baseURL));
    const fromThread = await threaded.respond(requestOf('Read a.txt', threadDeltas));
    const inProcess = await createWorkerModel(SETTINGS, endpointAt(server.baseURL)).respond(
      requestOf('Read a.txt', localDeltas),
    );
    // The fake server numbers the output items by request: the first and the second here.
    const itemsRenumbered = (response: typeof fromThread) =>
      JSON.parse(JSON.stringify(response).replaceAll(/"(msg|fc)_\d+/g, '"$1_N'));
    expect(JSON.stringify(fromThread)).toContain('"msg_1"');
    expect(itemsRenumbered(fromThread)).toEqual(itemsRenumbered(inProcess));
    expect(fromThread.functionCalls.map((call) => call.name)).toEqual(['read_file']);
    // The stream came in one piece: the in-process model saw its 5 deltas, the thread sent them joined.
    expect(localDeltas).toHaveLength(5);
    expect(threadDeltas).toEqual([answer.text]);
    // What went over the wire was the same request.
    expect(server.requests[0]?.body).toEqual(server.requests[1]?.body);
    expect(threaded.model).toBe('fake-model');
    expect(threaded.defaultToolSearch).toBe('client');
  });

  it("streams each request's text as it comes, deltas read together joined, before its answer", async () => {
    // One request streams slowly (an event every 150 ms); the others are read in one piece at once.
    const slow = 'one two three four';
    const server = await startFakeResponsesServer({
      script: (request) => {
        const prompt = JSON.stringify(request.body.input);
        return prompt.includes('slow')
          ? { text: slow, textChunks: 4, eventDelayMs: 150 }
          : { text: `answer to ${prompt.match(/quick \d/)?.[0]}`, textChunks: 50 };
      },
    });
    closers.push(() => server.close());
    const threaded = await started(SETTINGS, endpointAt(server.baseURL));
    const slowDeltas: Array<{ text: string; at: number }> = [];
    const request = requestOf('slow');
    const slowAnswer = threaded.respond({
      ...request,
      onTextDelta: (text) => slowDeltas.push({ text, at: performance.now() }),
    });
    const quick = [0, 1, 2].map((index) => {
      const deltas: string[] = [];
      return { deltas, answer: threaded.respond(requestOf(`quick ${index}`, deltas)) };
    });
    for (const [index, { deltas, answer }] of quick.entries()) {
      await answer;
      expect(deltas).toEqual([`answer to quick ${index}`]);
    }
    const first = await vi.waitUntil(() => slowDeltas[0], { timeout: 10_000 });
    await slowAnswer;
    const answered = performance.now();
    expect(slowDeltas.map((delta) => delta.text).join('')).toBe(slow);
    // Not held until the end: the first words came while the rest of the stream was still on its way.
    expect(slowDeltas.length).toBeGreaterThan(1);
    expect(answered - first.at).toBeGreaterThan(200);
  });

  it('sends each request with its own tool list: lists shared by requests under way, and sent again once none uses them', async () => {
    // The first three requests are held until all three have arrived: two share a list, one has another.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await startFakeResponsesServer({
      script: async (request) => {
        if (request.index < 3) await held;
        return { text: `answer ${request.index}` };
      },
    });
    closers.push(() => server.close());
    const threaded = await started(SETTINGS, endpointAt(server.baseURL));
    const other = [
      {
        type: 'function' as const,
        name: 'list_files',
        description: 'Lists files.',
        parameters: { type: 'object' },
        strict: false,
      },
    ];
    const withTools = (text: string, tools: ModelRequest['tools']) => ({ ...requestOf(text), tools });
    const firstList = requestOf('a').tools;
    const answers = [
      threaded.respond(withTools('a', firstList)),
      // Another array of the same list: the same list in the thread.
      threaded.respond(withTools('b', structuredClone(firstList))),
      threaded.respond(withTools('c', other)),
    ];
    await vi.waitFor(() => expect(server.requests).toHaveLength(3), { timeout: 30_000 });
    release();
    await Promise.all(answers);
    // No request uses the first list now: the thread has forgotten it, and is sent it again.
    await threaded.respond(withTools('d', firstList));
    const sentTools = Object.fromEntries(
      server.requests.map((request) => [
        (request.body.input as Array<{ content: string }>)[0]?.content,
        request.body.tools,
      ]),
    );
    expect(sentTools).toEqual({ a: firstList, b: firstList, c: other, d: firstList });
  });

  it("rejects an HTTP error with ModelRequestError, keeping its status and the server's message", async () => {
    const server = await startFakeResponsesServer({ script: [{ httpStatus: 400, message: 'no such tool' }] });
    closers.push(() => server.close());
    const threaded = await started(SETTINGS, endpointAt(server.baseURL));
    const error = await threaded.respond(requestOf('hi')).catch((caught: unknown) => caught);
    expect(ModelRequestError.isInstance(error)).toBe(true);
    expect((error as ModelRequestError).status).toBe(400);
    expect((error as Error).message).toContain('no such tool');
  });

  it("on an abort rejects with the signal's reason and ends the HTTP request in the thread", async () => {
    // A server that never answers, and says when the client gave the request up.
    let gaveUp: () => void = () => {};
    const closedByClient = new Promise<void>((resolve) => {
      gaveUp = resolve;
    });
    let received: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    const silent = http.createServer((request, response) => {
      received();
      response.on('close', () => gaveUp());
      request.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    });
    const { port } = silent.address() as AddressInfo;
    const threaded = await started(SETTINGS, endpointAt(`http://127.0.0.1:${port}/v1`));
    const controller = new AbortController();
    const answer = threaded.respond(requestOf('hi', [], controller.signal));
    await arrived;
    const reason = new Error('the turn was cancelled');
    controller.abort(reason);
    await expect(answer).rejects.toBe(reason);
    await closedByClient;
  });

  it('fails only the request whose response is malformed: the thread and the requests beside it go on', async () => {
    // Served raw: the second request's answer nests an item 20,000 levels deep (a structured clone of
    // it overflows the stack), or is cut past maxResponseBytes; the first is answered 300 ms later.
    const deep = `${'{"nest":'.repeat(19_999)}{}${'}'.repeat(19_999)}`;
    const completed = (output: string) =>
      `event: response.completed\ndata: {"type":"response.completed","sequence_number":1,"response":{"id":"resp_1","output":${output}}}\n\n`;
    const fine = `[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"fine","annotations":[]}]}]`;
    const raw = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        if (body.includes('slow')) setTimeout(() => response.end(completed(fine)), 300);
        else if (body.includes('deep')) response.end(completed(`[{"type":"odd","payload":${deep}}]`));
        else
          response.end(
            `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"${'z'.repeat(400_000)}"}\n\n`,
          );
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      raw.closeAllConnections();
      await new Promise((resolve) => raw.close(resolve));
    });
    const { port } = raw.address() as AddressInfo;
    const threaded = await started(
      { ...SETTINGS, maxResponseBytes: 262_144 },
      endpointAt(`http://127.0.0.1:${port}/v1`),
    );
    const slowDeltas: string[] = [];
    const slow = threaded.respond(requestOf('slow', slowDeltas));
    await expect(threaded.respond(requestOf('deep'))).rejects.toThrow(
      /^Model response malformed: output\[0\]\.payload\.nest[a-z.]*\.\.\. nests deeper than 64 levels$/,
    );
    await expect(threaded.respond(requestOf('large'))).rejects.toThrow(
      'Model response too large: its body passed 262144 bytes (maxResponseBytes), so it was not read further',
    );
    expect((await slow).output).toHaveLength(1);
  });

  it('when its thread runs out of memory, fails the requests it carried and starts a new thread for the next', async () => {
    // A 96 MB answer (the thread holds it at least three times: the bytes read, the delta, the final
    // response) against a 64 MB heap. Not smaller: the new thread takes the same limits, and under
    // load a 16 MB heap ran out while the new thread loaded its modules.
    const server = await startFakeResponsesServer({
      script: [{ text: 'x'.repeat(96 * 1024 * 1024), textChunks: 1 }, { text: 'fine' }],
    });
    closers.push(() => server.close());
    // Over the default maxResponseBytes (32 MiB), which would refuse it before the heap ran out.
    const threaded = await started(
      { ...SETTINGS, maxResponseBytes: 256 * 1024 * 1024 },
      endpointAt(server.baseURL),
      {
        resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
      },
    );
    const error = await threaded.respond(requestOf('a lot')).catch((caught: unknown) => caught);
    expect(ModelRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^the model thread stopped \(.+\): the request was not answered$/,
    );
    const deltas: string[] = [];
    const next = await threaded.respond(requestOf('a little', deltas));
    expect(deltas.join('')).toBe('fine');
    expect(next.output).toHaveLength(1);
  });

  it('refuses a request once closed, and rejects at start when the thread cannot make the model', async () => {
    const server = await startFakeResponsesServer({ script: [] });
    closers.push(() => server.close());
    const threaded = await startThreadedModel(SETTINGS, endpointAt(server.baseURL));
    await threaded.close();
    await expect(threaded.respond(requestOf('hi'))).rejects.toThrow('the model was closed');
    expect(server.requests).toHaveLength(0);
    await expect(startThreadedModel(SETTINGS, { ...endpointAt(server.baseURL), model: '' })).rejects.toThrow(
      /^the model thread did not start: createResponsesModel: model must be a non-empty model name$/,
    );
  });
});
