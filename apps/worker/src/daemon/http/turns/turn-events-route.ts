import type { OpenAPIHono } from '@hono/zod-openapi';
import type { DaemonTurnEvent, DaemonTurnSnapshot, DaemonTurns } from '../../daemon-turns';
import type { ApiContext } from '../api-context';
import type { EventStreamWriter } from '../bounded-event-stream';
import { type ApiBindings, eventStreamResponse, idRoute } from '../route-builders';
import { SHARED_ERRORS } from '../shared-error-responses';

/** One server-sent event. */
function sseBlock(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The server-sent events of a turn's log, numbered from `first`, made as a stream's reader takes them. */
function* eventBlocks(events: readonly DaemonTurnEvent[], first = 1): Generator<string> {
  let id = first;
  for (const event of events) {
    yield sseBlock(id, event.type, event);
    id += 1;
  }
}

/** Feeds the events of a turn this process runs (or ran and retains): its log so far, then live. */
function followLiveTurn(turns: DaemonTurns, id: string, writer: EventStreamWriter): () => void {
  let sequence = 0;
  const followed = turns.follow(id, (event) => {
    sequence += 1;
    writer.write(sseBlock(sequence, event.type, event));
    if (event.type === 'turn-end') writer.end();
  });
  if (followed === undefined) {
    writer.end();
    return () => {};
  }
  // The log so far is read as the reader takes it: it is held by the turn already.
  sequence = followed.past.length;
  writer.replay(eventBlocks(followed.past));
  if (!followed.live) writer.end();
  return followed.stop;
}

/** Whether a turn is still under way (running or waiting for an approval). */
const isUnderWay = (turn: DaemonTurnSnapshot) =>
  turn.status === 'running' || turn.status === 'waiting-approval';

/**
 * Feeds the events of a turn of another process or an earlier run: while it runs elsewhere, a
 * comment per check of the records (keeping the connection open); once it ended, its recorded log.
 */
function followRecordedTurn(
  turns: DaemonTurns,
  snapshot: DaemonTurnSnapshot,
  pollMs: number,
  writer: EventStreamWriter,
): () => void {
  let closed = false;
  void (async () => {
    let current = snapshot;
    // A turn under way elsewhere: its events so far (those its worker stored with its checkpoint),
    // then the rest of its log once it ends.
    let sent = 0;
    if (isUnderWay(current)) {
      const sofar = (await turns.recordedEvents(snapshot.id)) ?? [];
      if (closed) return;
      writer.replay(eventBlocks(sofar));
      sent = sofar.length;
    }
    while (!closed && isUnderWay(current)) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      writer.comment(': running elsewhere\n\n');
      current = (await turns.find(snapshot.id)) ?? current;
    }
    if (closed) return;
    const events: DaemonTurnEvent[] = (await turns.recordedEvents(snapshot.id)) ?? [];
    // An interrupted turn has no recorded log: its stream still ends with a turn-end.
    if (
      events.at(-1)?.type !== 'turn-end' &&
      current.status !== 'running' &&
      current.status !== 'waiting-approval'
    ) {
      events.push({
        type: 'turn-end',
        status: current.status,
        iterations: current.iterations,
        usage: current.usage,
        ...(current.error === undefined ? {} : { error: current.error }),
      });
    }
    writer.replay(eventBlocks(events.slice(sent), sent + 1));
    writer.end();
  })().catch(() => writer.end());
  return () => {
    closed = true;
  };
}

/**
 * Registers `GET /v1/turns/{id}/events` on the turns' sub-app: a turn's events, replayed, then
 * live, ending after `turn-end`, from whichever process runs or ran it (`findTurn`: 404 otherwise).
 */
export function registerTurnEvents(
  app: OpenAPIHono<ApiBindings>,
  context: ApiContext,
  findTurn: (id: string) => Promise<DaemonTurnSnapshot>,
): void {
  const { turns } = context.options;
  app.openapi(
    idRoute(
      'get',
      {
        operationId: 'getTurnEvents',
        path: '/v1/turns/{id}/events',
        summary: 'The turn’s events: replayed, then live, ending after turn-end',
        description:
          'Server-sent events, `event: <type>` and `data: <JSON>`: core’s turn-start, model-request-start, text-delta, model-request-end, tool-call-start, tool-call-progress, tool-call-end (its data is a ToolCallEndEvent, see components) and turn-end, and approval-requested / approval-resolved when a call is held for an approval. For a turn of another process or an earlier run: its recorded log, followed until it ends (tool-call-end outcomes recorded by an older worker are sent in today’s vocabulary). The log so far is replayed as the reader takes it, text deltas of one model request joined. A reader that falls more than `serve.maxEventStreamBytes` behind the live events gets `event: overflow` (a StreamOverflowEvent, see components) and the stream ends: read the turn again.',
      },
      SHARED_ERRORS.noTurn.ref,
      { 200: eventStreamResponse },
    ),
    async (c) => {
      const { id } = c.req.valid('param');
      const snapshot = await findTurn(id);
      const start = turns.has(id)
        ? (writer: EventStreamWriter) => followLiveTurn(turns, id, writer)
        : (writer: EventStreamWriter) => followRecordedTurn(turns, snapshot, context.pollMs, writer);
      return context.eventStream(c, 'switchyard turn events', start) as never;
    },
  );
}
