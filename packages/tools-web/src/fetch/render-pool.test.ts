import { measureEventLoop, STALL_BOUNDS } from '@switchyard/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import type { RenderRequest } from './render-page';
import { closeRenderThreads, renderInWorker, renderThreadStats } from './render-pool';

afterAll(async () => {
  await closeRenderThreads();
});

const encode = (text: string) => new TextEncoder().encode(text);

function request(html: string, mode: RenderRequest['mode'] = 'full'): RenderRequest {
  return {
    kind: 'html',
    mode,
    body: encode(html),
    url: 'https://example.com/',
    startIndex: 0,
    maxLength: 1000,
  };
}

const NORMAL = `<html><head><title>T</title></head><body><article>${'<p>Some words about rivers and towns along them, enough for an article. </p>'.repeat(8)}</article></body></html>`;
// Readability and turndown take minutes on this (and the stack overflows first in places).
const NESTED = '<div>'.repeat(100_000);
const open = () => ({ signal: new AbortController().signal });

describe('render threads', () => {
  it('renders in a thread and reuses it for the next page', async () => {
    const first = await renderInWorker(request(NORMAL), { conversionTimeoutMs: 30_000, ...open() });
    expect(first).toMatchObject({ ok: true, page: { format: 'markdown', title: 'T' } });
    const started = renderThreadStats().started;
    for (let index = 0; index < 3; index += 1) {
      expect((await renderInWorker(request(NORMAL), { conversionTimeoutMs: 30_000, ...open() })).ok).toBe(
        true,
      );
    }
    expect(renderThreadStats().started).toBe(started);
  });

  it('stops a render at its conversion deadline without blocking the event loop, and goes on with another thread', async () => {
    const { value, maxGapMs, maxBusyMs, elapsedMs } = await measureEventLoop(() =>
      renderInWorker(request(NESTED), { conversionTimeoutMs: 500, ...open() }),
    );
    expect(value).toEqual({
      ok: false,
      failure: 'conversion-timeout',
      message: 'rendering took longer than 500 ms',
    });
    // Correctness bounds, generous for a loaded machine: the loop kept turning, the call came back.
    if (maxBusyMs !== undefined) expect(maxBusyMs).toBeLessThan(STALL_BOUNDS.maxBusyMs);
    expect(maxGapMs).toBeLessThan(STALL_BOUNDS.maxGapMs);
    expect(elapsedMs).toBeLessThan(10_000);
    const after = await renderInWorker(request(NESTED, 'plain'), { conversionTimeoutMs: 30_000, ...open() });
    expect(after).toMatchObject({ ok: true, page: { format: 'html-text', totalLength: 0 } });
  });

  it('counts a render’s conversion deadline from when a thread takes it, not while it waits for one', async () => {
    const occupied = { conversionTimeoutMs: 2_000, ...open() };
    // Both threads are busy for 2 s; the third render waits that long, longer than its own deadline.
    const busy = [renderInWorker(request(NESTED), occupied), renderInWorker(request(NESTED), occupied)];
    const waited = await renderInWorker(request(NORMAL), { conversionTimeoutMs: 1_500, ...open() });
    expect(waited).toMatchObject({ ok: true, page: { format: 'markdown', title: 'T' } });
    for (const outcome of await Promise.all(busy))
      expect(outcome).toMatchObject({ failure: 'conversion-timeout' });
  });

  it('ends a running render when its signal fires, and a queued one as well', async () => {
    const controller = new AbortController();
    const options = { conversionTimeoutMs: 60_000, signal: controller.signal };
    // Two threads at most: the third render waits in the queue.
    const renders = [renderInWorker(request(NESTED), options), renderInWorker(request(NESTED), options)];
    const queued = renderInWorker(request(NORMAL), options);
    setTimeout(() => controller.abort(), 300);
    const { value, elapsedMs } = await measureEventLoop(() => Promise.all([...renders, queued]));
    for (const outcome of value) expect(outcome).toMatchObject({ ok: false, failure: 'aborted' });
    expect(elapsedMs).toBeLessThan(10_000);
    expect(
      await renderInWorker(request(NORMAL), { conversionTimeoutMs: 60_000, signal: AbortSignal.abort() }),
    ).toMatchObject({ ok: false, failure: 'aborted' });
    expect((await renderInWorker(request(NORMAL), { conversionTimeoutMs: 60_000, ...open() })).ok).toBe(true);
  });
});
