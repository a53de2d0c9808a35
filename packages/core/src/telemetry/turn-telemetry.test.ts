// What a failed turn exports as its spans' status messages, with the SDK's in-memory exporter, through
// the real openai SDK against the fake server: a provider's error message can quote the prompt.
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { runTurn } from '../loop/__fixtures__/loop-test-helpers';

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

afterEach(() => {
  exporter.reset();
});

const SECRET = 'the launch code is 0000-PLEASE-KEEP';

function only(prefix: string): ReadableSpan {
  const spans = exporter.getFinishedSpans().filter((span) => span.name.startsWith(prefix));
  expect(spans).toHaveLength(1);
  return spans[0] as ReadableSpan;
}

/** A turn whose one model request is refused with a 400 quoting the prompt back. */
async function refusedTurn(recordContent: boolean) {
  const { result } = await runTurn(
    [{ httpStatus: 400, message: `Your input "${SECRET}" violates the usage policy` }],
    { tools: [], input: SECRET, telemetry: { tracerProvider, recordContent } },
  );
  expect(result.status).toBe('failed');
  expect(result.error?.message).toContain(SECRET);
}

describe('span status messages of failed turns', () => {
  it('carry only the error type and HTTP status with content capture off', async () => {
    await refusedTurn(false);
    const chat = only('chat ');
    const turn = only('invoke_agent');
    expect(chat.status).toEqual({ code: 2, message: 'ModelRequestError (HTTP 400)' });
    expect(turn.status).toEqual({ code: 2, message: 'ModelRequestError (HTTP 400)' });
    // Nowhere on any span: status, attributes or events.
    expect(
      JSON.stringify(
        exporter.getFinishedSpans().map(({ status, attributes, events }) => ({ status, attributes, events })),
      ),
    ).not.toContain('launch code');
  });

  it("carry the error's message with content capture on", async () => {
    await refusedTurn(true);
    expect(only('chat ').status.message).toContain(SECRET);
    expect(only('invoke_agent').status.message).toContain(SECRET);
  });

  it('name the type alone for an error without an HTTP status', async () => {
    const { result } = await runTurn([{ failed: `the model fell over reading "${SECRET}"` }], {
      tools: [],
      input: SECRET,
      telemetry: { tracerProvider },
    });
    expect(result.status).toBe('failed');
    expect(only('chat ').status).toEqual({ code: 2, message: 'ModelRequestError' });
    expect(only('invoke_agent').status).toEqual({ code: 2, message: 'ModelRequestError' });
  });
});
