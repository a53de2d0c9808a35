import { describe, expect, it } from 'vitest';
import { readServerSentEvents } from './server-sent-events';

const encoder = new TextEncoder();

/** A body that delivers `chunks` one by one and records whether it was cancelled. */
function body(chunks: Array<string | Uint8Array>) {
  const state = { cancelled: false, delivered: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[state.delivered];
        state.delivered += 1;
        if (chunk === undefined) controller.close();
        else controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

async function read(chunks: Array<string | Uint8Array>): Promise<unknown[]> {
  const events: unknown[] = [];
  await readServerSentEvents(body(chunks).stream, (event) => events.push(event));
  return events;
}

const created = { type: 'response.created', sequence_number: 0 };
const delta = { type: 'response.output_text.delta', delta: 'héllo ✓', sequence_number: 1 };

describe('readServerSentEvents', () => {
  it('parses events split anywhere, multi-byte characters included, and reads nothing from [DONE] on', async () => {
    const text = `event: response.created\ndata: ${JSON.stringify(created)}\n\nevent: response.output_text.delta\ndata: ${JSON.stringify(delta)}\n\ndata: [DONE]\n\n`;
    const bytes = encoder.encode(text);
    // Every split point, so a chunk boundary falls inside "é", inside "✓", between the two newlines.
    for (let split = 1; split < bytes.length; split += 1) {
      expect(await read([bytes.slice(0, split), bytes.slice(split)])).toEqual([created, delta]);
    }
    expect(await read(Array.from(bytes, (byte) => Uint8Array.of(byte)))).toEqual([created, delta]);
    expect(await read([`${text}data: ${JSON.stringify(delta)}\n\ndata: not json\n\n`])).toEqual([
      created,
      delta,
    ]);
  });

  it('takes CRLF line endings, comments and data spread over several lines', async () => {
    const events = await read([
      ': keep-alive\r\n\r\n',
      `event: response.created\r\ndata: {"type":"response.created",\r\ndata: "sequence_number":0}\r\n\r\n`,
    ]);
    expect(events).toEqual([created]);
  });

  it('drops an event the end of the body cuts off', async () => {
    expect(await read([`data: ${JSON.stringify(created)}\n\ndata: ${JSON.stringify(delta)}\n`])).toEqual([
      created,
    ]);
  });

  it('fails on a message with an error member, naming its message', async () => {
    await expect(read([`data: {"error":{"message":"quota exceeded","code":"x"}}\n\n`])).rejects.toThrow(
      'the server sent an error: quota exceeded',
    );
    await expect(read([`data: {"error":"plain"}\n\n`])).rejects.toThrow('the server sent an error: "plain"');
  });

  it('fails on a message that is not JSON and cancels the body', async () => {
    const { stream, state } = body(['data: {"type":\n\n', `data: ${JSON.stringify(created)}\n\n`, 'unread']);
    await expect(readServerSentEvents(stream, () => {})).rejects.toThrow(SyntaxError);
    expect(state.cancelled).toBe(true);
    expect(state.delivered).toBe(1);
  });

  it('stops at what onEvent throws and cancels the body', async () => {
    const { stream, state } = body([`data: ${JSON.stringify(created)}\n\n`, 'more']);
    const seen: unknown[] = [];
    await expect(
      readServerSentEvents(stream, (event) => {
        seen.push(event);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(seen).toEqual([created]);
    expect(state.cancelled).toBe(true);
  });

  it('fails on an event that grows past the limit, and cancels the body', async () => {
    const long = `data: ${JSON.stringify({ type: 'response.output_text.delta', delta: 'x'.repeat(200) })}`;
    const { stream, state } = body([long.slice(0, 100), long.slice(100), '\n\n', 'more']);
    await expect(readServerSentEvents(stream, () => {}, { maxEventCharacters: 150 })).rejects.toThrow(
      'an event of the stream grew past 150 characters',
    );
    expect(state.cancelled).toBe(true);
    // Under the limit, the same event is read.
    expect(await read([long, '\n\n'])).toHaveLength(1);
  });

  it('drops the events skipEvent names without parsing them', async () => {
    const events: unknown[] = [];
    const skipped: string[] = [];
    await readServerSentEvents(
      body([
        'event: response.created\ndata: {"not json\n\n',
        `event: response.output_text.delta\ndata: ${JSON.stringify(delta)}\n\n`,
        `data: ${JSON.stringify(created)}\n\n`,
      ]).stream,
      (event) => events.push(event),
      {
        skipEvent: (name) => {
          skipped.push(name);
          return name === 'response.created';
        },
      },
    );
    expect(events).toEqual([delta, created]);
    expect(skipped).toEqual(['response.created', 'response.output_text.delta']);
  });

  it("rejects with the body's own error", async () => {
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        if (pulls === 1) controller.enqueue(encoder.encode(`data: ${JSON.stringify(created)}\n\n`));
        else controller.error(new Error('socket hang up'));
      },
    });
    const events: unknown[] = [];
    await expect(readServerSentEvents(stream, (event) => events.push(event))).rejects.toThrow(
      'socket hang up',
    );
    expect(events).toEqual([created]);
  });
});
