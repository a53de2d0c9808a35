import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { DEFAULT_MAX_EVENT_STREAM_BYTES, DEFAULT_MAX_EVENT_STREAMS } from '../memory-limits';
import { type BoundedEventStreamOptions, boundedEventStream } from './bounded-event-stream';
import type { DaemonHttpApiOptions } from './daemon-http-api-options';
import { HttpError } from './http-error';
import { type AgentFields, agentFields } from './shared-schemas';

/** What every resource's sub-app is made from: the API's options, and what is derived from them once. */
export interface ApiContext {
  /** The API's options, as `createDaemonHttpApi` was given them. */
  readonly options: DaemonHttpApiOptions;
  /** The query and body fields checked against the agents served (one set for every resource). */
  readonly fields: AgentFields;
  /** How often a stream of a turn running elsewhere, and `/v1/events`, read the records, in ms. */
  readonly pollMs: number;
  /** Whether `agent` is one this daemon serves: the API reads and writes only theirs. */
  serves(agent: string): boolean;
  /** The agents a list reads: the one its query names, or every agent served. */
  served(agent: string | undefined): string[];
  /** An event stream answering `c`, bounded for its reader (`boundedEventStream`). */
  eventStream(c: Context, comment: string, start: BoundedEventStreamOptions['start']): Response;
}

/** The context of `options`' sub-apps. */
export function createApiContext(options: DaemonHttpApiOptions): ApiContext {
  const { agents } = options;
  const limitBytes = options.maxEventStreamBytes ?? DEFAULT_MAX_EVENT_STREAM_BYTES;
  const maxStreams = options.maxEventStreams ?? DEFAULT_MAX_EVENT_STREAMS;
  // Event streams open now, across the API: each event is written to every one on the event loop.
  let openStreams = 0;
  const countStream = (c: Context) => {
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    // Without a Node response (`app.request` in a test) there is no connection to count.
    if (outgoing === undefined) return;
    if (openStreams >= maxStreams) {
      throw new HttpError(
        503,
        'overloaded',
        `this process has ${openStreams} event stream(s) open, at its bound of ${maxStreams} (serve.maxEventStreams): nothing was done; open it again after 2 s, or close another`,
        undefined,
        { 'retry-after': '2', connection: 'close' },
      );
    }
    openStreams += 1;
    // A response's close: its stream ended, or its connection went, whichever way.
    outgoing.once('close', () => {
      openStreams -= 1;
    });
  };
  return {
    options,
    fields: agentFields(agents),
    pollMs: options.recordPollMs ?? 1000,
    serves: (agent) => agents.includes(agent),
    served: (agent) => (agent === undefined ? [...agents] : [agent]),
    eventStream: (c, comment, start) => {
      countStream(c);
      return boundedEventStream(c, {
        comment,
        limitBytes,
        start,
        // An operator whose consoles keep reloading finds why here.
        onOverflow: () =>
          options.log?.(
            `switchyard serve: a reader of GET ${c.req.path} fell more than ${limitBytes} bytes behind (serve.maxEventStreamBytes); its stream ended with an overflow event`,
          ),
      });
    },
  };
}
