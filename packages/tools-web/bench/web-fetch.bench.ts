// Speed of the network guard and the page pipeline, against baselines measured in the same run.
// All traffic goes to a local server on 127.0.0.1; no other address is contacted.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { measure, ms, report } from '@switchyard/bench-kit';
import { Agent, fetch as undiciFetch } from 'undici';
import { loopbackOnlyConnector } from '../src/__fixtures__/loopback-only-connector';
import { htmlToMarkdown } from '../src/fetch/html-to-markdown';
import { closeRenderThreads, renderInWorker } from '../src/fetch/render-pool';
import { checkUrl } from '../src/guard/check-url';
import { classifyAddress } from '../src/guard/classify-address';
import { createWebFetchTool } from '../src/web-fetch-tool';

const paragraphs = Array.from(
  { length: 400 },
  (_, index) =>
    `<p>Paragraph ${index}: a river flows through several countries, shaping trade, farming and towns along its banks, <a href="/p/${index}">more</a>.</p>`,
).join('\n');
const page = `<!doctype html><html><head><title>Bench article</title><script>var x = 1;</script></head><body><nav><a href="/">Home</a></nav><article><h1>Bench</h1>${paragraphs}</article><footer>footer</footer></body></html>`;

const server = createServer((request, response) => {
  response.writeHead(200, {
    'content-type': request.url === '/text' ? 'text/plain' : 'text/html; charset=utf-8',
  });
  response.end(page);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const url = `http://127.0.0.1:${port}/article`;
const textUrl = `http://127.0.0.1:${port}/text`;

const noLookup = async () => {
  throw new Error('no lookup in this benchmark');
};

report('network guard', 'median', 'ratio');
const parse = await measure(() => new URL('http://0x7f.1/path'), { runs: 20_000 });
const classify = await measure(() => classifyAddress('2002:a9fe:a9fe::1'), { runs: 20_000 });
const check = await measure(() => checkUrl('http://93.184.215.14/path', { lookup: noLookup }), {
  runs: 20_000,
});
report('  new URL() (baseline)', ms(parse.median));
report(
  '  classifyAddress (IPv6 6to4)',
  ms(classify.median),
  `${(classify.median / parse.median).toFixed(1)}x URL parse`,
);
report('  checkUrl (IP literal)', ms(check.median), `${(check.median / parse.median).toFixed(1)}x URL parse`);

report(`page pipeline (${(page.length / 1024).toFixed(0)} KB HTML)`, 'median', 'ratio');
const convert = await measure(() => htmlToMarkdown(page, url), { runs: 30, warmup: 3 });
report('  htmlToMarkdown (Readability + turndown)', ms(convert.median));

// Baseline: a plain undici fetch of the same page with a fresh Agent, no guard, no conversion.
const plain = await measure(
  async () => {
    const agent = new Agent();
    const response = await undiciFetch(textUrl, { dispatcher: agent });
    await response.text();
    await agent.close();
  },
  { runs: 100, warmup: 10 },
);
const { connector } = loopbackOnlyConnector();
const tool = createWebFetchTool(
  { allowedTargets: [`127.0.0.1:${port}`], defaultMaxLength: 100_000 },
  { connector },
);
const context = {
  signal: new AbortController().signal,
  toolCallId: 'bench',
  idempotencyKey: 'bench:1',
  reportProgress: () => {},
};
const guardedText = await measure(() => tool.execute({ url: textUrl }, context), { runs: 100, warmup: 10 });
// The event loop's longest block while web_fetch converts the page: what every other agent's turn
// on the same loop waits for.
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
const eluBefore = performance.eventLoopUtilization();
const guarded = await measure(() => tool.execute({ url }, context), { runs: 30, warmup: 3 });
const mainThreadBusy = performance.eventLoopUtilization(eluBefore);
loopDelay.disable();
// A cold start: the render thread starts and loads linkedom, Readability and turndown.
const coldTimes: number[] = [];
for (let index = 0; index < 5; index += 1) {
  await closeRenderThreads();
  const started = performance.now();
  await tool.execute({ url }, context);
  coldTimes.push(performance.now() - started);
}
coldTimes.sort((a, b) => a - b);
report('  plain undici fetch, fresh agent, text (baseline)', ms(plain.median));
report(
  '  web_fetch of the same bytes as text (guard + caps + markers)',
  ms(guardedText.median),
  `${(guardedText.median / plain.median).toFixed(2)}x plain fetch`,
);
report(
  '  web_fetch of the page as HTML (+ Markdown conversion)',
  ms(guarded.median),
  `${(guarded.median / plain.median).toFixed(1)}x plain fetch`,
);
report('  longest event-loop block during those HTML calls', ms(loopDelay.max / 1e6));
// The event loop's own busy time (not waiting for I/O or the render thread), per call.
report('  event-loop busy time per HTML call', ms(mainThreadBusy.active / 33));
report(
  '  first HTML call after a cold start (render thread start)',
  ms(coldTimes[2] ?? Number.NaN),
  'median of 5; from source, through tsx',
);

// Deadlines: a render that misses its conversion deadline (its thread is stopped), then an ordinary
// page at once, as web_fetch's fallback or the next fetch would: how long the stopped render takes
// to come back, and how long the page after it waits for a thread and renders. Two renders at once
// (the pool's most) stall the same way, then one page follows.
report('render deadlines (500 ms conversion deadline, render pool)', 'median', 'worst');
const body = new TextEncoder().encode(page);
const nested = new TextEncoder().encode('<div>'.repeat(100_000));
const render = (source: Uint8Array, conversionTimeoutMs: number) =>
  renderInWorker(
    { kind: 'html', mode: 'full', body: source, url, startIndex: 0, maxLength: 100_000 },
    { conversionTimeoutMs, signal: new AbortController().signal },
  );
await closeRenderThreads();
await render(body, 30_000);
const stopped: number[] = [];
const after: number[] = [];
const pairStopped: number[] = [];
const deadlineDelay = monitorEventLoopDelay({ resolution: 5 });
deadlineDelay.enable();
for (let index = 0; index < 7; index += 1) {
  let started = performance.now();
  const outcome = await render(nested, 500);
  stopped.push(performance.now() - started);
  if (outcome.ok || outcome.failure !== 'conversion-timeout')
    throw new Error('the nested page did not time out');
  started = performance.now();
  if (!(await render(body, 30_000)).ok) throw new Error('the page after the deadline failed');
  after.push(performance.now() - started);
  started = performance.now();
  await Promise.all([render(nested, 500), render(nested, 500)]);
  pairStopped.push(performance.now() - started);
  // Let the pool settle (threads replaced) before the next round.
  await render(body, 30_000);
}
deadlineDelay.disable();
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
report('  a render stopped at its deadline, back after', ms(median(stopped)), ms(Math.max(...stopped)));
report('  the next page, right after it', ms(median(after)), ms(Math.max(...after)));
report(
  '  two renders stopped at once, both back after',
  ms(median(pairStopped)),
  ms(Math.max(...pairStopped)),
);
report('  longest event-loop block meanwhile', ms(deadlineDelay.max / 1e6));
await closeRenderThreads();

server.close();
