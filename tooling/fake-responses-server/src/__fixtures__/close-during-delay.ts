// A process that closes a fake Responses server while two delays are pending (a `delayMs` step
// before a non-streaming answer, an `eventDelayMs` pause mid-stream), then lets Node exit on its
// own. It prints one JSON line per stage and exits only when nothing is left running, so a delay
// timer that outlives `close()` keeps it alive. Run with `node --import tsx`.
import OpenAI, { APIConnectionError } from 'openai';
import { startFakeResponsesServer } from '../start-fake-responses-server';

const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const describeError = (error: unknown) =>
  error instanceof APIConnectionError ? 'APIConnectionError' : String(error);

let received: () => void = () => {};
const arrived = new Promise<void>((resolve) => {
  received = resolve;
});
const server = await startFakeResponsesServer({
  script: (request) => {
    if (request.body.stream === true) {
      return { eventDelayMs: 60_000, text: 'only the first event is sent before the server closes' };
    }
    received();
    return { delayMs: 60_000, text: 'never sent: the server closes first' };
  },
});
const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
const delayed = client.responses.create({ model: 'fake', input: 'hi' }).then(
  (response) => ({ settled: 'answered', text: response.output_text }),
  (error: unknown) => ({ settled: 'rejected', error: describeError(error) }),
);
const stream = await client.responses.create({ model: 'fake', input: 'hi', stream: true });
const iterator = stream[Symbol.asyncIterator]();
const first = await iterator.next();
const streamed = iterator.next().then(
  (next) => ({ settled: next.done ? 'ended' : 'answered' }),
  (error: unknown) => ({ settled: 'rejected', error: describeError(error) }),
);
await arrived;
print({ stage: 'pending', firstEvent: first.done ? undefined : first.value.type });
await server.close();
print({ stage: 'closed', errors: server.errors.length });
print({ stage: 'delayed', ...(await delayed) });
print({ stage: 'streamed', ...(await streamed) });
