import { connect, type Socket } from 'node:net';
import os from 'node:os';
import { startFakeResponsesServer } from '@switchyard/testkit';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { daemonJson } from '../daemon/daemon-requests';
import { sampleRss } from '../daemon/sample-rss';
import { type ServeDaemon, startServeDaemon } from '../daemon/serve-daemon';
import { heading, machineNow, median, report } from '../measure';

/** The target of issue 37 (item 4): what 40 stalled readers during 24 large-output turns add, bytes. */
export const STALLED_READERS_TARGET_BYTES = 100 * 1024 * 1024;

/** One daemon's run of the turns. */
export interface StalledReadersRun {
  /** `/v1/events` readers that read nothing (0 for the runs without them). */
  stalledReaders: number;
  /** Whether a `/v1/events` reader that reads everything was open beside them. */
  reading: boolean;
  /** Turns recorded `completed`. */
  completed: number;
  /** Seconds from the first POST to the last turn seen ended. */
  seconds: number;
  /** The daemon's RSS before the readers opened and the turns started (after a warm-up), bytes. */
  rssBefore: number;
  /** The highest RSS sampled (every 100 ms) while the turns ran, bytes. */
  rssPeak: number;
  /** The RSS 5 s after the last turn ended, the readers still connected, bytes. */
  rssAfter: number;
  /**
   * What the daemon's main thread held after a full garbage collection (V8 heap in use and the
   * buffers it holds), before the run and after it (once `rssAfter` was read), bytes.
   */
  liveBefore: number;
  liveAfter: number;
  /** Stalled readers whose stream ended with `event: overflow` once they read on. */
  cutOffWithEvent: number;
  /** Stalled readers whose connection the daemon had closed (the overflow event not taken in time). */
  closedByDaemon: number;
  /** Stalled readers still open and not cut off when they read on (each one a failure). */
  neverCutOff: number;
  /**
   * Characters of streamed text the one `/v1/events` reader that reads got (its `text-delta` events'
   * `delta`s; the daemon may join deltas that arrive together); NaN without it.
   */
  readerText: number;
  /** Whether that reader was cut off itself. */
  readerCutOff: boolean;
}

/** What the stalled-readers benchmark found. */
export interface StalledReadersResult {
  date: string;
  node: string;
  cores: number;
  /** 1-minute load average before and after. */
  load: [before: number, after: number];
  /** Turns started at once in each run. */
  turns: number;
  /** Characters of text each turn streams. */
  textBytes: number;
  /** Deltas it streams them in. */
  deltas: number;
  /** Runs of each kind, interleaved: the turns alone, with the stalled readers, and with a reading one too. */
  repeats: number;
  /** Every run, in the order they ran. */
  runs: StalledReadersRun[];
}

/** The runs of one kind: without readers (`stalledReaders` 0), with them, with a reading one too. */
export function runsOf(result: StalledReadersResult, stalledReaders: number, reading: boolean) {
  return result.runs.filter((run) => run.stalledReaders === stalledReaders && run.reading === reading);
}

/** A run's growth: to its RSS peak, to its RSS 5 s after, and of what its main thread holds. */
export function growthOf(run: StalledReadersRun): { peak: number; after: number; live: number } {
  return {
    peak: run.rssPeak - run.rssBefore,
    after: run.rssAfter - run.rssBefore,
    live: run.liveAfter - run.liveBefore,
  };
}

/**
 * What the stalled readers add: the median growth of the runs with them over the median growth of
 * the runs of the same turns without readers, bytes.
 */
export function addedByReaders(result: StalledReadersResult): { peak: number; after: number; live: number } {
  const medianGrowth = (runs: StalledReadersRun[], key: 'peak' | 'after' | 'live') =>
    median(runs.map((run) => growthOf(run)[key]));
  const without = runsOf(result, 0, false);
  const stalled = result.runs.filter((run) => run.stalledReaders > 0 && !run.reading);
  return {
    peak: medianGrowth(stalled, 'peak') - medianGrowth(without, 'peak'),
    after: medianGrowth(stalled, 'after') - medianGrowth(without, 'after'),
    live: medianGrowth(stalled, 'live') - medianGrowth(without, 'live'),
  };
}

/** A raw `net` client of `/v1/events` that reads the answer's head and opening comment, then nothing. */
async function openStalledReader(url: string): Promise<{ socket: Socket; chunks: Buffer[] }> {
  const { hostname, port, host } = new URL(url);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  socket.write(`GET /v1/events HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  const deadline = Date.now() + 30_000;
  while (!Buffer.concat(chunks).includes(': switchyard events')) {
    if (Date.now() > deadline) throw new Error('a /v1/events stream did not open within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  socket.pause();
  return { socket, chunks };
}

/**
 * Reads a stalled reader on until its answer ends or its connection closes (at most `waitMs` more):
 * what became of it.
 */
async function readOn(
  reader: { socket: Socket; chunks: Buffer[] },
  waitMs: number,
): Promise<'event' | 'closed' | 'open'> {
  const closed = new Promise<void>((resolve) => reader.socket.once('close', () => resolve()));
  reader.socket.resume();
  const deadline = Date.now() + waitMs;
  // Each chunk is scanned once (with the end of the one before, for a match across them): 40 readers
  // of several MB each, scanned whole every 50 ms, kept this process too busy to read them on in time.
  let scanned = 0;
  let tail = '';
  let overflow = false;
  const scan = () => {
    for (; scanned < reader.chunks.length; scanned += 1) {
      const text = tail + (reader.chunks[scanned] as Buffer).toString('latin1');
      if (text.includes('event: overflow')) overflow = true;
      tail = text.slice(-64);
    }
  };
  let state: 'event' | 'closed' | 'open' = 'open';
  for (;;) {
    scan();
    if (overflow && tail.endsWith('\r\n0\r\n\r\n')) {
      state = 'event';
      break;
    }
    if (reader.socket.destroyed || reader.socket.readableEnded) {
      scan();
      state = overflow ? 'event' : 'closed';
      break;
    }
    if (Date.now() > deadline) break;
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 50))]);
  }
  reader.socket.destroy();
  return state;
}

/** A `/v1/events` reader in this process that reads everything: counts the characters of text it gets. */
function openReadingReader(url: string) {
  const controller = new AbortController();
  let text = 0;
  let cutOff = false;
  const done = (async () => {
    const response = await fetch(`${url}/v1/events`, { signal: controller.signal });
    const messages = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream());
    for await (const message of messages) {
      if (message.event === 'overflow') cutOff = true;
      else if (message.data.includes('"type":"text-delta"')) {
        const data: { event: { delta: string } } = JSON.parse(message.data);
        text += data.event.delta.length;
      }
    }
  })().catch(() => {});
  return {
    text: () => text,
    cutOff: () => cutOff,
    close: async () => {
      controller.abort();
      await done;
    },
  };
}

/** Polls `GET /v1/turns/{id}` until every turn has ended; the number that completed. */
async function waitForTurns(url: string, ids: readonly string[]): Promise<number> {
  const ended = new Map<string, string>();
  const deadline = Date.now() + 15 * 60_000;
  while (ended.size < ids.length) {
    if (Date.now() > deadline)
      throw new Error(`only ${ended.size} of ${ids.length} turns ended in 15 minutes`);
    for (const id of ids) {
      if (ended.has(id)) continue;
      const turn: { status: string } = await daemonJson(`${url}/v1/turns/${id}`);
      if (turn.status !== 'running' && turn.status !== 'waiting-approval') ended.set(id, turn.status);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return [...ended.values()].filter((status) => status === 'completed').length;
}

/** Starts `count` turns at once; their ids. */
async function startTurns(url: string, count: number, prompt: string): Promise<string[]> {
  const started = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      daemonJson<{ id: string }>(`${url}/v1/turns`, {
        body: { prompt: `${prompt} ${index}` },
        expect: 202,
      }),
    ),
  );
  return started.map((turn) => turn.id);
}

/**
 * One run on a fresh daemon: a warm-up, then `stalledReaders` readers (and, with `reading`, one that
 * reads) and the turns.
 */
async function runOnce(
  baseURL: string,
  options: { stalledReaders: number; turns: number; reading: boolean },
): Promise<StalledReadersRun> {
  const daemon: ServeDaemon = await startServeDaemon({
    baseURL,
    database: { kind: 'pglite' },
    heap: true,
  });
  try {
    // Every code path once, and the process settled, before the baseline.
    await waitForTurns(daemon.url, await startTurns(daemon.url, 2, 'warm-up'));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const held = async () => {
      const heap = await daemon.liveHeap();
      return heap.heapUsed + heap.external;
    };
    const liveBefore = await held();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rssBefore = daemon.rss() ?? Number.NaN;
    const stalled = [];
    for (let index = 0; index < options.stalledReaders; index += 1) {
      stalled.push(await openStalledReader(daemon.url));
    }
    const reading = options.reading ? openReadingReader(daemon.url) : undefined;
    const sampler = sampleRss(() => daemon.rss(), 100);
    const start = performance.now();
    const completed = await waitForTurns(daemon.url, await startTurns(daemon.url, options.turns, 'long'));
    const seconds = (performance.now() - start) / 1000;
    const rssPeak = sampler.stop();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const rssAfter = daemon.rss() ?? Number.NaN;
    const liveAfter = await held();
    const outcomes = await Promise.all(stalled.map((reader) => readOn(reader, 10_000)));
    await reading?.close();
    const run: StalledReadersRun = {
      stalledReaders: options.stalledReaders,
      reading: options.reading,
      completed,
      seconds,
      rssBefore,
      rssPeak,
      rssAfter,
      liveBefore,
      liveAfter,
      cutOffWithEvent: outcomes.filter((outcome) => outcome === 'event').length,
      closedByDaemon: outcomes.filter((outcome) => outcome === 'closed').length,
      neverCutOff: outcomes.filter((outcome) => outcome === 'open').length,
      readerText: reading === undefined ? Number.NaN : reading.text(),
      readerCutOff: reading?.cutOff() ?? false,
    };
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
    report(
      `${options.stalledReaders} stalled${options.reading ? ', 1 reading' : ''}: RSS before / peak / after`,
      `${mb(rssBefore)} / ${mb(rssPeak)} / ${mb(rssAfter)}`,
      `held ${mb(liveBefore)} -> ${mb(liveAfter)}; ${completed} of ${options.turns} turns completed in ${seconds.toFixed(1)} s`,
    );
    return run;
  } catch (error) {
    // What the daemon said is what explains a run that broke off (a reset connection, a crash).
    throw new Error(`a stalled-readers run broke off; the daemon's log ends:\n${daemon.log().slice(-4000)}`, {
      cause: error,
    });
  } finally {
    await daemon.stop();
  }
}

/** Options of the stalled-readers benchmark. */
export interface StalledReadersOptions {
  /** Turns started at once (default 24). */
  turns?: number;
  /** `/v1/events` readers that read nothing (default 40). */
  stalledReaders?: number;
  /** Characters of text each turn streams (default 512 KiB). */
  textBytes?: number;
  /** Deltas it streams them in (default 16,384: 32 characters each). */
  deltas?: number;
  /** Runs of each kind (default 3): RSS moves with the garbage collector's timing from run to run. */
  repeats?: number;
}

/**
 * Issue 37, item 4: `switchyard serve` on embedded PGlite (default settings: each event stream holds
 * at most 4 MiB for its reader) with 40 `/v1/events` readers that read nothing (raw sockets), while 24
 * turns at once each stream 512 KiB of text in 32-character deltas from the fake model; the daemon's
 * RSS before, at its peak and after, and what its main thread holds after a full collection, against
 * the same turns without readers, and with one reader that reads everything beside the stalled ones.
 * Each kind runs `repeats` times on a fresh daemon, the kinds interleaved.
 */
export async function stalledReaders(options: StalledReadersOptions = {}): Promise<StalledReadersResult> {
  const turns = options.turns ?? 24;
  const readers = options.stalledReaders ?? 40;
  const textBytes = options.textBytes ?? 512 * 1024;
  const deltas = options.deltas ?? 16_384;
  const repeats = options.repeats ?? Number(process.env.BENCH_STALLED_REPEATS ?? 3);
  const before = os.loadavg()[0] ?? Number.NaN;
  heading(
    `Stalled readers: ${readers} /v1/events readers that read nothing while ${turns} turns stream ${textBytes / 1024} KiB each in ${deltas} deltas (load ${before.toFixed(1)})`,
  );
  const text = 'x'.repeat(textBytes);
  const fake = await startFakeResponsesServer({
    record: false,
    script: () => ({ text, textChunks: deltas }),
  });
  const runs: StalledReadersRun[] = [];
  try {
    for (let repeat = 0; repeat < repeats; repeat += 1) {
      // Each on a fresh daemon: the turns alone, with the stalled readers, and with one reader that
      // reads everything beside them.
      runs.push(await runOnce(fake.baseURL, { stalledReaders: 0, turns, reading: false }));
      runs.push(await runOnce(fake.baseURL, { stalledReaders: readers, turns, reading: false }));
      runs.push(await runOnce(fake.baseURL, { stalledReaders: readers, turns, reading: true }));
    }
  } finally {
    await fake.close();
  }
  return {
    ...machineNow(before),
    turns,
    textBytes,
    deltas,
    repeats,
    runs,
  };
}
