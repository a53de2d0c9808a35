import { startFakeResponsesServer } from '@switchyard/testkit';
import { heading, interleave, median, ms, pairedRatio, report, type Timings } from '../measure';
import type { BenchRuntime, BenchTool } from '../runtimes/bench-runtime';
import { benchTools } from '../scenarios/bench-tools';
import {
  checkRecordedTurn,
  scriptedTurn,
  TURN_ANSWER,
  TURN_BATCH,
  TURN_ITERATIONS,
} from '../scenarios/scripted-turn';

const TOOL_COUNT = 50;

/** One runtime's figures in the turn benchmark. */
export interface OverheadRow {
  /** Runtime name. */
  name: string;
  /** Median wall and CPU milliseconds per turn. */
  wall: number;
  cpu: number;
  /** Paired ratios (median of per-round ratios) to the bare loop and to Switchyard. */
  wallToBare: number;
  cpuToBare: number;
  wallToSwitchyard: number;
  cpuToSwitchyard: number;
  /** (median - bare median) / iterations, in milliseconds. */
  wallPerIteration: number;
  cpuPerIteration: number;
}

/** What the turn benchmark found. */
export interface OverheadResult {
  rounds: number;
  iterations: number;
  batch: number;
  tools: number;
  rows: OverheadRow[];
  /** Runtimes that failed the recorded-turn check, with why (they are not timed). */
  failed: Array<{ name: string; problems: string[] }>;
}

function counted(tools: readonly BenchTool[]): {
  tools: BenchTool[];
  count: () => number;
  reset: () => void;
} {
  let executed = 0;
  return {
    tools: tools.map((tool) => ({
      ...tool,
      execute: (params) => {
        executed += 1;
        return tool.execute(params);
      },
    })),
    count: () => executed,
    reset: () => {
      executed = 0;
    },
  };
}

/**
 * A 20-iteration scripted turn with 50 tools and a parallel batch of 3 calls in each of the first
 * 19 responses. Every runtime first runs one turn against a recording server, which must show 20
 * requests carrying every call's output (a runtime that skips calls cannot post a fast figure); then
 * all runtimes run interleaved against one non-recording server. The baseline is the bare openai
 * SDK loop: the difference is each runtime's own overhead (HTTP, SSE and JSON cost all the same).
 */
export async function loopOverhead(
  runtimes: readonly BenchRuntime[],
  baseline: BenchRuntime,
): Promise<OverheadResult> {
  const counter = counted(benchTools(TOOL_COUNT));
  const script = scriptedTurn(counter.tools);
  const all = [baseline, ...runtimes];
  const failed: OverheadResult['failed'] = [];
  const verifier = await startFakeResponsesServer({ script });
  const passing: BenchRuntime[] = [];
  try {
    for (const runtime of all) {
      verifier.reset(script);
      counter.reset();
      let problems: string[];
      try {
        const output = await runtime.prepare({
          baseURL: verifier.baseURL,
          tools: counter.tools,
          instructions: 'You are a benchmark.',
          input: 'Go.',
        })();
        problems = checkRecordedTurn(counter.tools, verifier.requests, counter.count());
        if (output.trim() !== TURN_ANSWER) problems.push(`answered ${JSON.stringify(output).slice(0, 80)}`);
      } catch (error) {
        problems = [`threw: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300)];
      }
      if (verifier.errors.length > 0) problems.push(`server errors: ${String(verifier.errors[0])}`);
      if (problems.length === 0) passing.push(runtime);
      else failed.push({ name: runtime.name, problems });
    }
  } finally {
    await verifier.close().catch(() => {});
  }
  if (!passing.includes(baseline)) throw new Error(`the baseline failed its check: ${failed[0]?.problems}`);

  const server = await startFakeResponsesServer({ record: false, script });
  const rounds = Number(process.env.BENCH_ROUNDS ?? 40);
  let timings: Timings[];
  try {
    const turn = {
      baseURL: server.baseURL,
      tools: counter.tools,
      instructions: 'You are a benchmark.',
      input: 'Go.',
    };
    const contenders = passing.map((runtime) => ({ name: runtime.name, run: runtime.prepare(turn) }));
    timings = await interleave(contenders, { rounds, warmup: 5 });
  } finally {
    await server.close();
  }
  const [base, ...others] = timings;
  if (base === undefined) throw new Error('no baseline timings');
  const switchyard = timings.find((timing) => timing.name === 'switchyard');
  const rows: OverheadRow[] = timings.map((timing) => ({
    name: timing.name,
    wall: median(timing.runs),
    cpu: median(timing.cpu),
    wallToBare: pairedRatio(timing, base),
    cpuToBare: pairedRatio(timing, base, 'cpu'),
    wallToSwitchyard: switchyard ? pairedRatio(timing, switchyard) : Number.NaN,
    cpuToSwitchyard: switchyard ? pairedRatio(timing, switchyard, 'cpu') : Number.NaN,
    wallPerIteration: (median(timing.runs) - median(base.runs)) / TURN_ITERATIONS,
    cpuPerIteration: (median(timing.cpu) - median(base.cpu)) / TURN_ITERATIONS,
  }));
  heading(
    `Agent turn: ${TURN_ITERATIONS} iterations, ${TURN_BATCH} parallel calls per response, ${TOOL_COUNT} tools (${rounds} interleaved rounds)`,
  );
  for (const row of rows) {
    report(
      `${row.name}, wall / CPU per turn`,
      `${ms(row.wall)} / ${ms(row.cpu)}`,
      row === rows[0]
        ? 'baseline (CPU includes the fake server)'
        : `bare x${row.wallToBare.toFixed(2)} / x${row.cpuToBare.toFixed(2)}; switchyard x${row.wallToSwitchyard.toFixed(2)} / x${row.cpuToSwitchyard.toFixed(2)}; +${ms(row.cpuPerIteration)} CPU per iteration`,
    );
  }
  for (const failure of failed)
    report(`${failure.name}: FAILED the turn check`, '', failure.problems.slice(0, 3).join('; '));
  void others;
  return { rounds, iterations: TURN_ITERATIONS, batch: TURN_BATCH, tools: TOOL_COUNT, rows, failed };
}
