// Brain recall over 10,000 pages of one agent, on embedded PGlite and on a PostgreSQL server: the
// latency of `controlPlane.brain.recall` (median, p90, p99, worst) for 300 queries after 30 unmeasured
// ones, and, for scale, how fast the pages were written through `remember`. The pages and queries come
// from a fixed-seed generator (pseudo-words drawn by Zipf's law, as real vocabularies are), so every run
// and both backends search the same corpus.

import { ms, percentile, report } from '@switchyard/bench-kit';
import type { ControlPlane } from '../src/index';
import { queryControlPlane } from '../src/testing';
import { onEachBackend } from './bench-databases';

const PAGES = 10_000;
const QUERIES = 300;
const WARMUP = 30;
const AGENT = 'bench-brain';

/** mulberry32: a small, fixed-seed PRNG, so the corpus is the same in every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SYLLABLES = [
  'ba',
  'ke',
  'li',
  'mo',
  'nu',
  'ra',
  'si',
  'to',
  'vu',
  'za',
  'pe',
  'go',
  'fi',
  'du',
  'ha',
  'jo',
  'ly',
  'ne',
  'wo',
  'xi',
];

/** Distinct words, and the most frequent ranks left out as a stop list would leave them out. */
const VOCABULARY = 20_000;
const STOP_RANKS = 150;

function corpus() {
  const next = random(24);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    const syllables = 2 + Math.floor(next() * 3);
    words.add(Array.from({ length: syllables }, () => pick(SYLLABLES)).join(''));
  }
  const vocabulary = [...words];
  // Zipf's law (word r drawn about as often as 1/r), without the most frequent ranks: English text
  // after its stop words. The most frequent word is then on about a fifth of the pages.
  const word = () =>
    vocabulary[Math.floor(STOP_RANKS * Math.exp(next() * Math.log(VOCABULARY / STOP_RANKS))) - 1] as string;
  const phrase = (count: number) => Array.from({ length: count }, word).join(' ');
  const tags = Array.from({ length: 40 }, (_, index) => `topic-${index}`);
  const pages = Array.from({ length: PAGES }, (_, index) => {
    const lines: string[] = [];
    const length = 120 + Math.floor(next() * 130);
    for (let count = 0; count < length; count += 15) lines.push(`${phrase(15)}.`);
    return {
      title: `${phrase(3 + Math.floor(next() * 4))} ${index}`,
      tags: [pick(tags), pick(tags)],
      body: lines.join('\n'),
    };
  });
  // Half the queries name a page by two or three words of its title; half are two to four words drawn
  // like the pages' own (frequent words match thousands of pages: the expensive case).
  const queries = Array.from({ length: WARMUP + QUERIES }, (_, index) => {
    if (index % 2 === 0) return phrase(2 + Math.floor(next() * 3));
    const title = (pick(pages).title.split(' ').slice(0, -1) as string[]).slice(
      0,
      2 + Math.floor(next() * 2),
    );
    return title.join(' ');
  });
  return { pages, queries };
}

const { pages, queries } = corpus();

async function benchmark(label: string, controlPlane: ControlPlane): Promise<void> {
  const writeStart = performance.now();
  for (const page of pages) await controlPlane.brain.remember({ agentId: AGENT, ...page });
  const writeMs = performance.now() - writeStart;
  await queryControlPlane(controlPlane, 'ANALYZE switchyard.brain_pages');
  const times: number[] = [];
  let hits = 0;
  for (const [index, query] of queries.entries()) {
    const start = performance.now();
    const found = await controlPlane.brain.recall({ agentId: AGENT, query, limit: 5 });
    if (index >= WARMUP) {
      times.push(performance.now() - start);
      hits += found.length;
    }
  }
  times.sort((a, b) => a - b);
  report(
    `${label}: ${PAGES} pages written through remember`,
    ms(writeMs),
    `${(PAGES / (writeMs / 1000)).toFixed(0)} pages/s`,
  );
  report(`  recall (limit 5), ${QUERIES} queries, median`, ms(percentile(times, 0.5)));
  report('  recall, p90', ms(percentile(times, 0.9)));
  report('  recall, p99', ms(percentile(times, 0.99)));
  report('  recall, worst', ms(times.at(-1) ?? Number.NaN), `${(hits / QUERIES).toFixed(1)} hits per query`);
}

await onEachBackend({}, benchmark);
