// What streamed text costs a `switchyard serve`: the same turns answered in one delta and in many,
// read at once and spread out as a model streams, CPU a turn of the daemon's process and of its
// event loop (the main thread) from /proc.
import os from 'node:os';
import { startFakeResponsesServer } from '@switchyard/testkit';
import { daemonJson } from '../daemon/daemon-requests';
import { msPer } from '../daemon/daemon-stats';
import { mainThreadCpuMs, processCpuMs } from '../daemon/process-cpu';
import { startServeDaemon } from '../daemon/serve-daemon';
import { heading, machineNow, median, report } from '../measure';

/** How a case's answers stream: `deltas` pieces, `gapMs` apart (0: the whole stream written at once). */
export interface StreamedTextCase {
  deltas: number;
  gapMs: number;
}

/** One case's figures over every round: CPU a turn, ms, each round in the order they ran. */
export interface StreamedTextRow extends StreamedTextCase {
  processMs: number[];
  mainThreadMs: number[];
  /** Turns that did not complete with the whole text, over every round. */
  failed: number;
}

/** What the streamed-text benchmark found. */
export interface StreamedTextResult {
  date: string;
  node: string;
  cores: number;
  load: [before: number, after: number];
  turns: number;
  textChars: number;
  rounds: number;
  rows: StreamedTextRow[];
}

/** Options of `streamedText`. */
export interface StreamedTextOptions {
  /** Turns posted at once per case and round (default 200). */
  turns?: number;
  /** Rounds, the cases in rotating order (default 3). */
  rounds?: number;
}

/** The cases: the first is the baseline the others are read against. */
export const STREAMED_TEXT_CASES: readonly StreamedTextCase[] = [
  { deltas: 1, gapMs: 0 },
  { deltas: 2000, gapMs: 0 },
  { deltas: 300, gapMs: 5 },
];

/** A case's median CPU a turn over the baseline's (the first row), ms: process, main thread. */
export function addedByDeltas(
  rows: readonly StreamedTextRow[],
  row: StreamedTextRow,
): { processMs: number; mainThreadMs: number } {
  const base = rows[0];
  if (base === undefined) return { processMs: Number.NaN, mainThreadMs: Number.NaN };
  return {
    processMs: median(row.processMs) - median(base.processMs),
    mainThreadMs: median(row.mainThreadMs) - median(base.mainThreadMs),
  };
}

/**
 * One `switchyard serve` on embedded PGlite; per round and case, `turns` API turns posted at once,
 * each a single model request answered with the same text (10,000 characters) streamed as the case
 * says. The daemon's process and main-thread CPU over each case, per completed turn.
 */
export async function streamedText(options: StreamedTextOptions = {}): Promise<StreamedTextResult> {
  const turns = options.turns ?? 200;
  const rounds = options.rounds ?? 3;
  const loadBefore = os.loadavg()[0] ?? Number.NaN;
  const text = 'word '.repeat(2_000);
  let current: StreamedTextCase = { deltas: 1, gapMs: 0 };
  const fake = await startFakeResponsesServer({
    record: false,
    script: () => ({ text, textChunks: current.deltas, eventDelayMs: current.gapMs }),
  });
  const daemon = await startServeDaemon({ baseURL: fake.baseURL, database: { kind: 'pglite' } });
  heading(
    `Streamed text: ${turns} turns at once, each one answer of ${text.length} characters (load ${loadBefore.toFixed(1)})`,
  );
  const rows: StreamedTextRow[] = STREAMED_TEXT_CASES.map((each) => ({
    ...each,
    processMs: [],
    mainThreadMs: [],
    failed: 0,
  }));
  const runCase = async (row: StreamedTextRow) => {
    current = row;
    const processBefore = processCpuMs(daemon.pid);
    const mainBefore = mainThreadCpuMs(daemon.pid);
    const ids = await Promise.all(
      Array.from({ length: turns }, async (_, index) => {
        const turn: { id: string } = await daemonJson(`${daemon.url}/v1/turns`, {
          body: { prompt: `streamed turn ${index}` },
          expect: 202,
        });
        return turn.id;
      }),
    );
    let completed = 0;
    const deadline = Date.now() + 5 * 60_000;
    for (const id of ids) {
      for (;;) {
        if (Date.now() > deadline)
          throw new Error(`turn ${id} of ${row.deltas} deltas still running after 5 minutes`);
        const turn: { status: string; endedAt?: string; output: string } = await daemonJson(
          `${daemon.url}/v1/turns/${id}`,
        );
        if (turn.endedAt !== undefined) {
          if (turn.status === 'completed' && turn.output === text) completed += 1;
          else row.failed += 1;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return {
      processMs: msPer(processCpuMs(daemon.pid) - processBefore, completed),
      mainThreadMs: msPer(mainThreadCpuMs(daemon.pid) - mainBefore, completed),
    };
  };
  try {
    // Every code path once before the first reading.
    await runCase({ deltas: 1, gapMs: 0, processMs: [], mainThreadMs: [], failed: 0 });
    for (let round = 0; round < rounds; round += 1) {
      const order = rows.map((_, index) => rows[(index + round) % rows.length] as StreamedTextRow);
      for (const row of order) {
        const cpu = await runCase(row);
        row.processMs.push(cpu.processMs);
        row.mainThreadMs.push(cpu.mainThreadMs);
      }
    }
  } finally {
    await daemon.stop();
    await fake.close();
  }
  for (const row of rows) {
    const added = addedByDeltas(rows, row);
    report(
      `${row.deltas} deltas${row.gapMs === 0 ? ' at once' : `, ${row.gapMs} ms apart`}: CPU a turn`,
      `${median(row.processMs).toFixed(2)} ms`,
      `main thread ${median(row.mainThreadMs).toFixed(2)} ms; over 1 delta: +${added.processMs.toFixed(2)} / +${added.mainThreadMs.toFixed(2)} ms${row.failed === 0 ? '' : `; ${row.failed} turns failed`}`,
    );
  }
  return { ...machineNow(loadBefore), turns, textChars: text.length, rounds, rows };
}
