import { describe, expect, it } from 'vitest';
import { LoadShedder } from './load-shedder';

describe('load shedding', () => {
  it('admits requests up to the bound, refuses the next with Retry-After, and admits again once one is done', () => {
    const shedder = new LoadShedder({ maxWaitingWork: 2, runningTurns: () => 0 });
    const first = shedder.admit({ startsWork: false });
    const second = shedder.admit({ startsWork: false });
    expect([first.admitted, second.admitted]).toEqual([true, true]);
    const third = shedder.admit({ startsWork: false });
    expect(third).toEqual({
      admitted: false,
      reason: 'this process has 2 request(s) under way, at its bound of 2 (serve.maxWaitingWork)',
      retryAfterSeconds: 2,
    });
    if (first.admitted) first.done();
    // done() twice gives back one place, not two.
    if (first.admitted) first.done();
    expect(shedder.requestsUnderWay).toBe(1);
    expect(shedder.admit({ startsWork: false }).admitted).toBe(true);
    expect(shedder.admit({ startsWork: false }).admitted).toBe(false);
  });

  it('does not count a request while it waits on its client, and counts it again after, whatever the bound', async () => {
    const shedder = new LoadShedder({ maxWaitingWork: 1, runningTurns: () => 0 });
    const slow = shedder.admit({ startsWork: false });
    if (!slow.admitted) throw new Error('expected the first request to be admitted');
    let arrive: (body: string) => void = () => {};
    const body = slow.awaitClient(
      new Promise<string>((resolve) => {
        arrive = resolve;
      }),
    );
    expect(shedder.requestsUnderWay).toBe(0);
    // Its place is free while its body arrives.
    const other = shedder.admit({ startsWork: false });
    expect(other.admitted).toBe(true);
    arrive('{}');
    expect(await body).toBe('{}');
    expect(shedder.requestsUnderWay).toBe(2);
    if (other.admitted) other.done();
    slow.done();
    slow.done();
    expect(shedder.requestsUnderWay).toBe(0);
    // Done while waiting: it never counts again, and a rejection passes through.
    const gone = shedder.admit({ startsWork: false });
    if (!gone.admitted) throw new Error('expected an admission');
    const failed = gone.awaitClient(Promise.reject(new Error('the client went away')));
    gone.done();
    await expect(failed).rejects.toThrow('the client went away');
    expect(shedder.requestsUnderWay).toBe(0);
  });

  it('counts running turns against a request that starts work, not against one that reads or cancels', () => {
    let running = 3;
    const shedder = new LoadShedder({ maxWaitingWork: 4, runningTurns: () => running, retryAfterSeconds: 5 });
    const start = shedder.admit({ startsWork: true });
    expect(start.admitted).toBe(true);
    // One request under way and three turns running: the bound of 4 is reached for new work...
    expect(shedder.admit({ startsWork: true })).toEqual({
      admitted: false,
      reason:
        'this process has 1 request(s) under way and 3 turn(s) running, at its bound of 4 (serve.maxWaitingWork)',
      retryAfterSeconds: 5,
    });
    // ...but an operator can still read and cancel.
    expect(shedder.admit({ startsWork: false }).admitted).toBe(true);
    running = 1;
    expect(shedder.admit({ startsWork: true }).admitted).toBe(true);
  });

  it('logs a burst of refusals in two lines: when they begin, and with their count once the load is below nine tenths of the bound', () => {
    const lines: string[] = [];
    const shedder = new LoadShedder({
      maxWaitingWork: 10,
      runningTurns: () => 0,
      log: (line) => lines.push(line),
    });
    const held = Array.from({ length: 10 }, () => shedder.admit({ startsWork: false }));
    for (let index = 0; index < 5; index += 1) shedder.admit({ startsWork: false });
    expect(lines).toEqual([
      'switchyard serve: over its bound of waiting work, answering 503: this process has 10 request(s) under way, at its bound of 10 (serve.maxWaitingWork)',
    ]);
    // Hovering at the bound (one done, one admitted, one more refused) adds no line.
    const release = (count: number) => {
      for (const admission of held.splice(0, count)) if (admission.admitted) admission.done();
    };
    release(1);
    held.push(shedder.admit({ startsWork: false }));
    shedder.admit({ startsWork: false });
    expect(lines).toHaveLength(1);
    // Below nine tenths: the burst is over, and its refusals are counted.
    release(3);
    shedder.admit({ startsWork: false });
    expect(lines.at(-1)).toBe(
      'switchyard serve: taking requests again after answering 6 with 503 (serve.maxWaitingWork 10)',
    );
    expect(lines).toHaveLength(2);
  });
});
