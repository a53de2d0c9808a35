import type { ApiContext } from '../api-context';
import { createResourceApp, eventStreamResponse, listRoute } from '../route-builders';
import { refuseOtherMethods } from '../route-registrars';
import { EventFeed, feedMessageText, type NumberedFeedMessage } from './event-feed';
import { eventsQuerySchema } from './event-schemas';

/**
 * The live feed's sub-app: `GET /v1/events`, every turn and approval of the agents served as
 * server-sent events (`EventFeed`), bounded for each reader.
 */
export function createEventsApp(context: ApiContext) {
  const { options } = context;
  const feed = new EventFeed({
    turns: options.turns,
    controlPlane: options.controlPlane,
    agents: options.agents,
    pollMs: context.pollMs,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  const app = createResourceApp();
  app.openapi(
    listRoute(
      {
        operationId: 'getEvents',
        path: '/v1/events',
        summary: 'Every turn and approval of the agents served, live (for a console)',
        description:
          'Server-sent events: `event: turn` (a turn started, changed status or ended, in any process: the Turn), `event: turn-event` (`{ turnId, agent, event }`: each event of a turn this process runs; a tool-call-end event is a ToolCallEndEvent), `event: approval` (an approval asked for, answered, expired or cancelled, in any process: the Approval). Other processes’ changes arrive within a poll of the records (about a second). Each event’s `id` is its number in this process’s feed. A reader that falls more than `serve.maxEventStreamBytes` behind gets `event: overflow` (a StreamOverflowEvent, see components) and the stream ends: reconnect and reload what it shows.',
      },
      eventsQuerySchema(context.fields),
      eventStreamResponse,
    ),
    (c) => {
      const { agent } = c.req.valid('query');
      return context.eventStream(c, 'switchyard events', (writer) => {
        const unsubscribe = feed.subscribe((message: NumberedFeedMessage) => {
          if (agent !== undefined && message.data.agent !== agent) return;
          writer.write(feedMessageText(message));
        });
        // A comment now and then keeps idle proxies from closing the stream.
        const keepAlive = setInterval(() => writer.comment(': idle\n\n'), 15_000);
        keepAlive.unref();
        return () => {
          clearInterval(keepAlive);
          unsubscribe();
        };
      }) as never;
    },
  );
  refuseOtherMethods(app, [['/v1/events', ['GET']]]);
  return app;
}
