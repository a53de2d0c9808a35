import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EventLoopShare, SHARE_MS } from './event-loop-share';

/** Holds the event loop for `ms` by the wall clock: a step's synchronous work, however busy the machine. */
function hold(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('EventLoopShare', () => {
  it('lets steps go in the order they waited, none before the wait returns', async () => {
    const share = new EventLoopShare();
    const order: number[] = [];
    const steps = Array.from({ length: 50 }, (_, index) =>
      share.wait().then(() => {
        order.push(index);
      }),
    );
    // Nothing is let go synchronously, nor in the microtasks that follow.
    await Promise.resolve();
    expect(order).toEqual([]);
    await Promise.all(steps);
    expect(order).toEqual(Array.from({ length: 50 }, (_, index) => index));
  });

  it('serves a timer and a request between shares while 100 steps of 3 ms each wait', async () => {
    const share = new EventLoopShare();
    const events: string[] = [];
    const server = createServer((_request, response) => {
      events.push('request');
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      // A connection made before the steps, so the request needs only the loop's next poll.
      await (await fetch(url)).text();
      events.length = 0;
      const steps = Array.from({ length: 100 }, (_, index) =>
        share.wait().then(() => {
          hold(3);
          events.push(`step ${index}`);
        }),
      );
      setTimeout(() => events.push('timer'), 0);
      const answered = fetch(url).then((response) => response.text());
      await Promise.all([...steps, answered]);
      // Run as they came, the 100 steps would hold the loop for 300 ms before either. A share lets
      // steps go for SHARE_MS at most (the last one may start just before its end), so the timer
      // and the request come within the first few shares, whatever the machine's speed.
      const perShare = Math.ceil(SHARE_MS / 3) + 1;
      const stepsBefore = (event: string) =>
        events.slice(0, events.indexOf(event)).filter((seen) => seen.startsWith('step')).length;
      expect(events.filter((event) => event.startsWith('step'))).toHaveLength(100);
      expect(stepsBefore('timer')).toBeLessThanOrEqual(2 * perShare);
      expect(stepsBefore('request')).toBeLessThanOrEqual(10 * perShare);
    } finally {
      server.close();
    }
  });

  it('runs steps read in one turn of the loop in place for SHARE_MS, then in shares', async () => {
    const share = new EventLoopShare();
    const ran: string[] = [];
    // A poll phase reads 3 requests; the first two run a share between them: the third waits.
    const steps = [0.1, 1, 0.1].map((shares, index) => {
      const waiting = share.inPlace();
      const run = () => {
        hold(SHARE_MS * shares);
        ran.push(`step ${index}`);
      };
      if (waiting === undefined) {
        run();
        return Promise.resolve();
      }
      ran.push(`step ${index} waits`);
      return waiting.then(run);
    });
    expect(ran).toEqual(['step 0', 'step 1', 'step 2 waits']);
    await Promise.all(steps);
    expect(ran).toEqual(['step 0', 'step 1', 'step 2 waits', 'step 2']);
    // The next turn of the loop counts afresh.
    await new Promise((resolve) => setImmediate(resolve));
    expect(share.inPlace()).toBeUndefined();
  });

  it('lets one step go per check phase when each runs past the share', async () => {
    const share = new EventLoopShare();
    const seen: string[] = [];
    const steps = Array.from({ length: 3 }, (_, index) =>
      share.wait().then(() => {
        hold(SHARE_MS + 5);
        seen.push(`step ${index}`);
        // An immediate queued by a step runs in the check phase after this one's: before the next step.
        setImmediate(() => seen.push(`after step ${index}`));
      }),
    );
    await Promise.all(steps);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['step 0', 'after step 0', 'step 1', 'after step 1', 'step 2', 'after step 2']);
  });
});
