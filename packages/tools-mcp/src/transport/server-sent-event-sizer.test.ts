import { describe, expect, it } from 'vitest';
import { ServerSentEventSizer } from './server-sent-event-sizer';

/** The largest event `push` reported over the chunks. */
function largest(chunks: string[]): number {
  const sizer = new ServerSentEventSizer();
  return Math.max(0, ...chunks.map((chunk) => sizer.push(Buffer.from(chunk))));
}

describe('measuring server-sent events as they arrive', () => {
  it.each([
    ['LF', 'data: 12345\n\n'],
    ['CRLF', 'data: 12345\r\n\r\n'],
    ['CR', 'data: 12345\r\r'],
  ])('ends an event at an empty line (%s)', (_breaks, event) => {
    // Each event is counted alone: three of them are no larger than one.
    expect(largest([event.repeat(3)])).toBe(event.length);
  });

  it('counts every line of an event, and an event split over chunks as one', () => {
    const event = 'event: message\nid: 1\ndata: {"a":\ndata: 1}\n\n';
    expect(largest([event.slice(0, 7), event.slice(7, 30), event.slice(30)])).toBe(event.length);
  });

  it('sees a CRLF split between two chunks as one line break, not an empty line', () => {
    // Were the LF taken as an empty line, the event would end there and the next look small. (The
    // event ends at the CR of its empty line; the LF after it is counted with the next event.)
    expect(largest(['data: a\r', '\ndata: b\r\n\r\n'])).toBe('data: a\r\ndata: b\r\n\r'.length);
  });

  it('grows with an event that never ends, chunk after chunk', () => {
    const sizer = new ServerSentEventSizer();
    sizer.push(Buffer.from('data: '));
    let seen = 0;
    for (let index = 0; index < 10; index += 1) seen = sizer.push(Buffer.alloc(1000, 'e'));
    expect(seen).toBe(6 + 10_000);
  });
});
