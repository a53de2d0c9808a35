/** One page to write through `remember`. */
export interface BrainCorpusPage {
  title: string;
  tags: string[];
  body: string;
}

/** What the recall benchmark writes and asks. */
export interface BrainCorpus {
  /** The pages, in the order they are written. */
  pages: BrainCorpusPage[];
  /** The queries, each with what kind of query it is. */
  queries: Array<{ query: string; kind: 'title words' | 'frequent words' | 'one frequent word' }>;
}

/** mulberry32: a small fixed-seed PRNG, so every run and both backends search the same corpus. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SYLLABLES = 'ba ke li mo nu ra si to vu za pe go fi du ha jo ly ne wo xi'.split(' ');
/** Distinct words, and the most frequent ranks left out as a stop list leaves them out. */
const VOCABULARY = 20_000;
const STOP_RANKS = 150;

/**
 * A fixed-seed corpus for Brain recall: `pages` pages of pseudo-words drawn by Zipf's law (as real
 * vocabularies are, without the stop-word head: the most frequent word is on about a fifth of the
 * pages), most of 120 to 250 words, and one in `fullEvery` a full page of about `fullBytes` (what a
 * model that saves whole documents writes, and what made recall slow); 40 tags, two a page. The
 * queries are a third each: two or three words of a page's title, two to four words drawn like the
 * pages' own (which match thousands of pages), and one frequent word.
 */
export function brainCorpus(options: {
  pages: number;
  queries: number;
  fullEvery: number;
  fullBytes: number;
}): BrainCorpus {
  const next = random(39);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    words.add(Array.from({ length: 2 + Math.floor(next() * 3) }, () => pick(SYLLABLES)).join(''));
  }
  const vocabulary = [...words];
  const word = () =>
    vocabulary[Math.floor(STOP_RANKS * Math.exp(next() * Math.log(VOCABULARY / STOP_RANKS))) - 1] as string;
  const phrase = (count: number) => Array.from({ length: count }, word).join(' ');
  const tags = Array.from({ length: 40 }, (_, index) => `topic-${index}`);
  const pages = Array.from({ length: options.pages }, (_, index) => {
    const lines: string[] = [];
    if (index % options.fullEvery === options.fullEvery - 1) {
      let bytes = 0;
      while (bytes < options.fullBytes) {
        const line = `${phrase(15)}.`;
        lines.push(line);
        bytes += line.length + 1;
      }
    } else {
      const length = 120 + Math.floor(next() * 130);
      for (let count = 0; count < length; count += 15) lines.push(`${phrase(15)}.`);
    }
    return {
      title: `${phrase(3 + Math.floor(next() * 4))} ${index}`,
      tags: [pick(tags), pick(tags)],
      body: lines.join('\n'),
    };
  });
  // The most frequent words the pages use (the ranks just past the stop-word head).
  const frequent = vocabulary.slice(STOP_RANKS - 1, STOP_RANKS + 39);
  const queries = Array.from({ length: options.queries }, (_, index) => {
    if (index % 3 === 0) {
      const title = pick(pages).title.split(' ').slice(0, -1);
      return { query: title.slice(0, 2 + Math.floor(next() * 2)).join(' '), kind: 'title words' as const };
    }
    if (index % 3 === 1)
      return { query: phrase(2 + Math.floor(next() * 3)), kind: 'frequent words' as const };
    return { query: pick(frequent), kind: 'one frequent word' as const };
  });
  return { pages, queries };
}
