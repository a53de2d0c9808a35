import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type ControlPlane, ControlPlaneInputError, openControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import { startThrowawayPostgres } from '../daemon/throwaway-postgres';
import { heading, median, ms, report } from '../measure';
import { type BrainCorpus, brainCorpus } from '../scenarios/brain-corpus';

const AGENT = 'bench-brain';
/** Pages one recall returns: the most the `recall` tool lets a model ask for. */
export const RECALL_LIMIT = 20;

/** Latency figures of a set of calls, ms. */
export interface LatencyFigures {
  median: number;
  p90: number;
  p99: number;
  max: number;
}

/** What one backend measured. */
export interface BrainRecallBackend {
  /** `PGlite` (embedded, one connection in a thread of its own) or `PostgreSQL` (a server, a pool). */
  backend: 'PGlite' | 'PostgreSQL';
  /** Why it did not run, when it did not. */
  skipped?: string;
  /** Seconds the pages took to write through `remember`. */
  writeSeconds: number;
  /** Each recall alone (no other query running), over every query. */
  recall: LatencyFigures;
  /** Each recall alone, by kind of query: median and worst. */
  byKind: Array<{ kind: string; queries: number; median: number; max: number }>;
  /** Recalls refused by their time limit (PostgreSQL's `statement_timeout`). */
  refused: number;
  /** Another query (`getPage`, a primary-key read) with nothing else running. */
  idle: LatencyFigures;
  /** The same query, issued back to back while each recall ran: how long it waited, at worst. */
  behindRecall: LatencyFigures & { probes: number };
}

/** What the Brain recall benchmark found. */
export interface BrainRecallResult {
  /** Pages written, of them full pages, and the bodies' total size in MB. */
  pages: number;
  fullPages: number;
  megabytes: number;
  /** Queries measured per backend (after the warm-up). */
  queries: number;
  backends: BrainRecallBackend[];
  /** Load average (1 min) before and after, and the cores. */
  load: [number, number];
  cores: number;
}

const figures = (values: number[]): LatencyFigures => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
  return { median: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
};

/** Times one recall; a refusal by the time limit is counted, not thrown. */
async function timedRecall(
  controlPlane: ControlPlane,
  query: string,
): Promise<{ ms: number; refused: boolean }> {
  const start = performance.now();
  try {
    await controlPlane.brain.recall({ agentId: AGENT, query, limit: RECALL_LIMIT });
    return { ms: performance.now() - start, refused: false };
  } catch (error) {
    if (ControlPlaneInputError.isInstance(error) && error.field === 'query') {
      return { ms: performance.now() - start, refused: true };
    }
    throw error;
  }
}

/**
 * Reads one page back to back until `done` settles, returning each read's time: a read issued while
 * a recall holds PGlite's one connection waits for the statement under way.
 */
async function probeUntil(
  controlPlane: ControlPlane,
  pageId: string,
  done: Promise<unknown>,
): Promise<number[]> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const times: number[] = [];
  while (!finished) {
    const start = performance.now();
    await controlPlane.brain.getPage({ agentId: AGENT, pageId });
    times.push(performance.now() - start);
  }
  return times;
}

async function measureBackend(
  backend: BrainRecallBackend['backend'],
  controlPlane: ControlPlane,
  corpus: BrainCorpus,
  warmup: number,
): Promise<BrainRecallBackend> {
  const writeStart = performance.now();
  let pageId = '';
  for (const page of corpus.pages) {
    pageId = (await controlPlane.brain.remember({ agentId: AGENT, ...page })).page.pageId;
  }
  const writeSeconds = (performance.now() - writeStart) / 1000;
  await queryControlPlane(controlPlane, 'ANALYZE switchyard.brain_pages');
  for (const { query } of corpus.queries.slice(0, warmup)) await timedRecall(controlPlane, query);
  const measured = corpus.queries.slice(warmup);
  const alone: Array<{ kind: string; ms: number }> = [];
  let refused = 0;
  for (const { query, kind } of measured) {
    const timed = await timedRecall(controlPlane, query);
    alone.push({ kind, ms: timed.ms });
    if (timed.refused) refused += 1;
  }
  const idleTimes: number[] = [];
  for (let index = 0; index < 200; index += 1) {
    const start = performance.now();
    await controlPlane.brain.getPage({ agentId: AGENT, pageId });
    idleTimes.push(performance.now() - start);
  }
  const waits: number[] = [];
  for (const { query } of measured) {
    const recall = timedRecall(controlPlane, query);
    waits.push(...(await probeUntil(controlPlane, pageId, recall)));
    await recall;
  }
  const kinds = [...new Set(alone.map((entry) => entry.kind))];
  return {
    backend,
    writeSeconds,
    recall: figures(alone.map((entry) => entry.ms)),
    byKind: kinds.map((kind) => {
      const times = alone.filter((entry) => entry.kind === kind).map((entry) => entry.ms);
      return { kind, queries: times.length, median: median(times), max: Math.max(...times) };
    }),
    refused,
    idle: figures(idleTimes),
    behindRecall: { ...figures(waits), probes: waits.length },
  };
}

const skippedBackend = (backend: BrainRecallBackend['backend'], reason: string): BrainRecallBackend => {
  const none = { median: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN };
  return {
    backend,
    skipped: reason,
    writeSeconds: Number.NaN,
    recall: none,
    byKind: [],
    refused: 0,
    idle: none,
    behindRecall: { ...none, probes: 0 },
  };
};

/**
 * Brain recall over 10,000 pages of one agent (`BENCH_BRAIN_PAGES`), written through `remember`, on
 * embedded PGlite and on a throw-away PostgreSQL cluster: each recall's time alone (limit 20), and how
 * long another query of the worker (a page read by id) waited while recalls ran. On PGlite every query
 * of the worker goes through one connection, so that wait is what one recall costs everyone else.
 */
export async function brainRecall(
  options: { pages?: number; queries?: number; warmup?: number } = {},
): Promise<BrainRecallResult> {
  const pages = options.pages ?? 10_000;
  const warmup = options.warmup ?? 9;
  const corpus = brainCorpus({
    pages,
    queries: warmup + (options.queries ?? 90),
    fullEvery: 20,
    fullBytes: 60_000,
  });
  const megabytes = corpus.pages.reduce((sum, page) => sum + Buffer.byteLength(page.body), 0) / 1e6;
  const fullPages = corpus.pages.filter((page) => page.body.length > 30_000).length;
  heading(
    `Brain recall: ${pages} pages (${fullPages} of about 60 KB; ${megabytes.toFixed(1)} MB), limit ${RECALL_LIMIT}`,
  );
  const loadStart = os.loadavg()[0] ?? Number.NaN;
  const backends: BrainRecallBackend[] = [];

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-brain-'));
  try {
    const controlPlane = await openControlPlane({ dataDir, environment: {} });
    try {
      backends.push(await measureBackend('PGlite', controlPlane, corpus, warmup));
    } finally {
      await controlPlane.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }

  const postgres = await startThrowawayPostgres();
  if ('skipped' in postgres) backends.push(skippedBackend('PostgreSQL', postgres.skipped));
  else {
    try {
      const controlPlane = await openControlPlane({ databaseUrl: postgres.url, environment: {} });
      try {
        backends.push(await measureBackend('PostgreSQL', controlPlane, corpus, warmup));
      } finally {
        await controlPlane.close();
      }
    } finally {
      await postgres.stop();
    }
  }
  for (const result of backends) {
    if (result.skipped !== undefined) {
      report(`${result.backend}`, 'skipped', result.skipped);
      continue;
    }
    report(`${result.backend}: pages written`, `${result.writeSeconds.toFixed(1)} s`);
    report(
      `${result.backend}: recall alone, median / p99 / worst`,
      ms(result.recall.median),
      `${ms(result.recall.p99)} / ${ms(result.recall.max)}`,
    );
    report(
      `${result.backend}: another query, idle median / behind a recall, worst`,
      ms(result.idle.median),
      `${ms(result.behindRecall.max)} (p99 ${ms(result.behindRecall.p99)})`,
    );
  }
  return {
    pages,
    fullPages,
    megabytes,
    queries: corpus.queries.length - warmup,
    backends,
    load: [loadStart, os.loadavg()[0] ?? Number.NaN],
    cores: os.cpus().length,
  };
}
