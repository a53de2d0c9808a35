import { startFakeResponsesServer } from '@switchyard/testkit';
import { heading, median, ms, report } from '../measure';
import type { BenchRuntime } from '../runtimes/bench-runtime';
import { benchTools } from '../scenarios/bench-tools';

const CALLS = 8;
const WAIT_MS = 100;
const RUNS = 5;

/** One runtime's parallel-batch figure. */
export interface ParallelBatchRow {
  /** Runtime name. */
  name: string;
  /** Median wall milliseconds of the whole turn (two model requests and the batch). */
  turn: number;
  /** The most calls that were executing at once (8: the whole batch ran concurrently). */
  maxInFlight: number;
}

/**
 * One response with 8 calls to 8 tools that each wait 100 ms, then a text answer: the whole
 * turn's wall time per runtime, and the most calls executing at once (counted inside the tools).
 * A runtime that runs the batch concurrently takes about 100 ms plus two requests; one that runs
 * it in sequence takes 800 ms.
 */
export async function parallelBatch(runtimes: readonly BenchRuntime[]): Promise<ParallelBatchRow[]> {
  const tools = benchTools(CALLS, { waitMs: WAIT_MS });
  let executed = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const counted = tools.map((tool) => ({
    ...tool,
    execute: async (params: Record<string, unknown>) => {
      executed += 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        return await tool.execute(params);
      } finally {
        inFlight -= 1;
      }
    },
  }));
  const server = await startFakeResponsesServer({
    record: false,
    script: (request) =>
      Array.isArray(request.body.input) &&
      (request.body.input as Array<{ type?: string }>).some((item) => item.type === 'function_call_output')
        ? { text: 'done' }
        : {
            functionCalls: tools.map((tool, index) => ({
              name: tool.name,
              callId: `call_${index}`,
              arguments: { path: `p${index}`, limit: null, mode: null, filters: null },
            })),
          },
  });
  const rows: ParallelBatchRow[] = [];
  try {
    for (const runtime of runtimes) {
      const run = runtime.prepare({
        baseURL: server.baseURL,
        tools: counted,
        instructions: 'Bench.',
        input: 'Go.',
      });
      await run();
      const times: number[] = [];
      executed = 0;
      maxInFlight = 0;
      for (let index = 0; index < RUNS; index += 1) {
        const start = performance.now();
        await run();
        times.push(performance.now() - start);
      }
      if (executed !== CALLS * RUNS)
        throw new Error(`${runtime.name} executed ${executed} of ${CALLS * RUNS} calls`);
      rows.push({ name: runtime.name, turn: median(times), maxInFlight });
    }
  } finally {
    await server.close();
  }
  heading(
    `Parallel batch: one response with ${CALLS} calls that each wait ${WAIT_MS} ms (median of ${RUNS} turns)`,
  );
  for (const row of rows)
    report(
      `${row.name}, whole turn`,
      ms(row.turn),
      `at most ${row.maxInFlight} of ${CALLS} calls executing at once`,
    );
  return rows;
}
