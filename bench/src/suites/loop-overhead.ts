import { loadavg } from 'node:os';
import { type FakeRequest, startFakeResponsesServer } from '@switchyard/testkit';
import { heading, interleave, median, ms, pairedRatio, report, type Timings } from '../measure';
import type { BenchRuntime, ComposedTurn } from '../runtimes/bench-runtime';
import {
  checkRecordedTurn,
  scriptedTurn,
  TURN_ANSWER,
  TURN_BATCH,
  TURN_ITERATIONS,
} from '../scenarios/scripted-turn';
import { createToolSpecs, MODULE_TOOL_SPECS, type ToolSpec } from '../scenarios/varied-tools';

/**
 * Where the turn's Zod schemas come from: `module`, created once at module level (the usual
 * category), tool objects defined inside each turn; `fresh`, the schemas themselves created inside
 * each turn (generated tools, MCP tools converted per turn).
 */
export type ToolVariant = 'module' | 'fresh';

/** The two variants, in report order. */
export const TOOL_VARIANTS: readonly ToolVariant[] = ['module', 'fresh'];

/**
 * Switchyard's targets against the bare loop of the same variant (issue 23), as paired ratios:
 * the whole turn's CPU with module-level and with fresh schemas, and the time to the first request
 * of a fresh turn (tool definition and schema conversion).
 */
export const LOOP_OVERHEAD_TARGETS = {
  cpuModule: 1.03,
  cpuFresh: 1.05,
  firstRequestFresh: 1.25,
} as const;

/** One runtime's figures in one variant of the turn benchmark. */
export interface OverheadRow {
  /** Runtime name. */
  name: string;
  /** Where the schemas come from. */
  variant: ToolVariant;
  /** Median wall and CPU milliseconds per turn. */
  wall: number;
  cpu: number;
  /** Median milliseconds from the turn's start to its first request reaching the fake server. */
  firstRequest: number;
  /** Median milliseconds from the turn's start to its tool specs (and, `fresh`, their Zod schemas) being created. */
  schemasCreated: number;
  /**
   * Median milliseconds from the turn's start to its tools being defined and their schemas
   * converted (`ComposedTurn.toolsReady`); NaN for a runtime that converts inside its own calls.
   */
  toolsDefined: number;
  /** Paired ratios (median of per-round ratios) to the bare loop and to Switchyard, same variant. */
  wallToBare: number;
  cpuToBare: number;
  firstRequestToBare: number;
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
  /** Load average (1, 5, 15 minutes) when the timed rounds started and when they ended. */
  load: { before: number[]; after: number[] };
  rows: OverheadRow[];
  /** The baseline runtime's name (the bare loop). */
  baseline: string;
  /** Runtimes that failed the recorded-turn check, with why (they are not timed). */
  failed: Array<{ name: string; variant: ToolVariant; problems: string[] }>;
}

/** A runtime in one variant. */
type Contender = { runtime: BenchRuntime; variant: ToolVariant };

/**
 * The scripted turn every contender runs, and the marks each run of it leaves: the calls executed,
 * and when (`performance.now()`) the turn's schemas were created, its tools defined and its first
 * request reached the fake server.
 */
function scriptedTurnWithMarks() {
  const byName = new Map(MODULE_TOOL_SPECS.map((spec) => [spec.name, spec]));
  const script = scriptedTurn(MODULE_TOOL_SPECS, (name, path) => byName.get(name)?.sample(path) ?? {});
  const state = {
    executed: 0,
    firstRequestAt: undefined as number | undefined,
    schemasCreatedAt: undefined as number | undefined,
    toolsDefinedAt: undefined as number | undefined,
  };
  const execute = async (spec: ToolSpec, params: Record<string, unknown>) => {
    state.executed += 1;
    return `${spec.name} done for ${String(params[spec.subject])}`;
  };
  return {
    script,
    state,
    /** The script, noting when its first request arrived. */
    timedScript: (request: FakeRequest) => {
      state.firstRequestAt ??= performance.now();
      return script(request);
    },
    /** The turn a runtime composes against `baseURL`, its schemas as `variant` says. */
    composed: (baseURL: string, variant: ToolVariant): ComposedTurn => ({
      baseURL,
      instructions: 'You are a benchmark.',
      input: 'Go.',
      specs: () => {
        const specs = variant === 'module' ? MODULE_TOOL_SPECS : createToolSpecs(MODULE_TOOL_SPECS.length);
        state.schemasCreatedAt ??= performance.now();
        return specs;
      },
      execute,
      toolsReady: () => {
        state.toolsDefinedAt ??= performance.now();
      },
    }),
    /** The marks as `interleave` reads them, reset before each run. */
    marks: {
      reset: () => {
        state.schemasCreatedAt = undefined;
        state.toolsDefinedAt = undefined;
        state.firstRequestAt = undefined;
      },
      at: () => ({
        schemasCreated: state.schemasCreatedAt,
        toolsDefined: state.toolsDefinedAt,
        firstRequest: state.firstRequestAt,
      }),
    },
  };
}

type MarkedTurn = ReturnType<typeof scriptedTurnWithMarks>;

/**
 * Runs one turn of every runtime in every variant against a recording server: a contender passes
 * when the server saw every request carrying every call's output and the turn gave the answer.
 *
 * Contract: throws when the baseline fails in a variant (nothing could be compared with it).
 */
async function checkContenders(
  all: readonly BenchRuntime[],
  baseline: BenchRuntime,
  turn: MarkedTurn,
): Promise<{ passing: Contender[]; failed: OverheadResult['failed'] }> {
  const failed: OverheadResult['failed'] = [];
  const passing: Contender[] = [];
  const verifier = await startFakeResponsesServer({ script: turn.script });
  try {
    for (const variant of TOOL_VARIANTS) {
      for (const runtime of all) {
        verifier.reset(turn.script);
        turn.state.executed = 0;
        let problems: string[];
        try {
          const output = await runtime.composeTurn(turn.composed(verifier.baseURL, variant))();
          problems = checkRecordedTurn(MODULE_TOOL_SPECS, verifier.requests, turn.state.executed);
          if (output.trim() !== TURN_ANSWER) problems.push(`answered ${JSON.stringify(output).slice(0, 80)}`);
        } catch (error) {
          problems = [`threw: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300)];
        }
        if (verifier.errors.length > 0) problems.push(`server errors: ${String(verifier.errors[0])}`);
        if (problems.length === 0) passing.push({ runtime, variant });
        else failed.push({ name: runtime.name, variant, problems });
      }
      if (!passing.some((entry) => entry.runtime === baseline && entry.variant === variant))
        throw new Error(`the baseline failed its check: ${failed[0]?.problems}`);
    }
  } finally {
    await verifier.close().catch(() => {});
  }
  return { passing, failed };
}

/** Every row of one variant's timings, against the baseline and Switchyard of that variant. */
function variantRows(
  inVariant: readonly Timings[],
  variant: ToolVariant,
  baselineName: string,
): OverheadRow[] {
  const base = inVariant.find((timing) => timing.name === baselineName);
  if (base === undefined) throw new Error(`no baseline timings for ${variant}`);
  const switchyard = inVariant.find((timing) => timing.name === 'switchyard');
  return inVariant.map((timing) => ({
    name: timing.name,
    variant,
    wall: median(timing.runs),
    cpu: median(timing.cpu),
    firstRequest: median(timing.marks.firstRequest ?? []),
    schemasCreated: median(timing.marks.schemasCreated ?? []),
    toolsDefined: median(timing.marks.toolsDefined ?? []),
    wallToBare: pairedRatio(timing, base),
    cpuToBare: pairedRatio(timing, base, 'cpu'),
    firstRequestToBare: pairedRatio(timing, base, { mark: 'firstRequest' }),
    wallToSwitchyard: switchyard ? pairedRatio(timing, switchyard) : Number.NaN,
    cpuToSwitchyard: switchyard ? pairedRatio(timing, switchyard, 'cpu') : Number.NaN,
    wallPerIteration: (median(timing.runs) - median(base.runs)) / TURN_ITERATIONS,
    cpuPerIteration: (median(timing.cpu) - median(base.cpu)) / TURN_ITERATIONS,
  }));
}

/** Prints the rows and the failed checks. */
function reportOverhead(result: OverheadResult): void {
  const { rows, failed, rounds, load } = result;
  heading(
    `Agent turn: ${TURN_ITERATIONS} iterations, ${TURN_BATCH} parallel calls per response, ${MODULE_TOOL_SPECS.length} distinct tools composed inside each turn (${rounds} interleaved rounds, load ${load.before[0]?.toFixed(1)} -> ${load.after[0]?.toFixed(1)})`,
  );
  for (const row of rows) {
    report(
      `${row.name} [${row.variant}], wall / CPU / first request`,
      `${ms(row.wall)} / ${ms(row.cpu)} / ${ms(row.firstRequest)}`,
      row.name === result.baseline
        ? 'baseline (CPU includes the fake server)'
        : `bare x${row.wallToBare.toFixed(2)} / x${row.cpuToBare.toFixed(2)} / x${row.firstRequestToBare.toFixed(2)}; switchyard x${row.wallToSwitchyard.toFixed(2)} / x${row.cpuToSwitchyard.toFixed(2)}`,
    );
  }
  for (const failure of failed)
    report(
      `${failure.name} [${failure.variant}]: FAILED the turn check`,
      '',
      failure.problems.slice(0, 3).join('; '),
    );
}

/**
 * A 20-iteration scripted turn with 50 distinct tools (each its own Zod schema) and a parallel
 * batch of 3 calls in each of the first 19 responses, every runtime composing its tools inside the
 * turn, in two variants (`module` and `fresh` schemas). Every runtime and variant first runs one
 * turn against a recording server, which must show 20 requests carrying every call's output (a
 * runtime that skips calls cannot post a fast figure); then all of them run interleaved, in an
 * balanced order (each right after each other equally often), against one non-recording server. The baseline is the bare
 * openai SDK loop of the same variant: the difference is each runtime's own overhead.
 */
export async function loopOverhead(
  runtimes: readonly BenchRuntime[],
  baseline: BenchRuntime,
): Promise<OverheadResult> {
  const turn = scriptedTurnWithMarks();
  const { passing, failed } = await checkContenders([baseline, ...runtimes], baseline, turn);

  const server = await startFakeResponsesServer({ record: false, script: turn.timedScript });
  const rounds = Number(process.env.BENCH_ROUNDS ?? 40);
  const loadBefore = loadavg();
  let timings: Timings[];
  try {
    const contenders = passing.map(({ runtime, variant }) => ({
      name: runtime.name,
      run: runtime.composeTurn(turn.composed(server.baseURL, variant)),
    }));
    timings = await interleave(contenders, { rounds, warmup: 5, marks: turn.marks });
  } finally {
    await server.close();
  }
  const loadAfter = loadavg();

  const rows = TOOL_VARIANTS.flatMap((variant) =>
    variantRows(
      timings.filter((_, index) => passing[index]?.variant === variant),
      variant,
      baseline.name,
    ),
  );
  const result: OverheadResult = {
    rounds,
    iterations: TURN_ITERATIONS,
    batch: TURN_BATCH,
    tools: MODULE_TOOL_SPECS.length,
    load: { before: loadBefore, after: loadAfter },
    rows,
    baseline: baseline.name,
    failed,
  };
  reportOverhead(result);
  return result;
}
