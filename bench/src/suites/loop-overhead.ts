import { startFakeResponsesServer } from '@switchyard/testkit';
import { heading, interleave, median, ms, pairedRatio, report } from '../measure';
import type { BenchRuntime } from '../runtimes/bench-runtime';
import { benchTools } from '../scenarios/bench-tools';

const ITERATIONS = 20;
const TOOL_COUNT = 50;

/**
 * A 20-iteration scripted turn with 50 tools: 19 responses each calling one tool, then a text
 * answer. Every runtime talks to the same fake server; the ratio to the bare SDK loop is the
 * runtime's own overhead per turn (HTTP, SSE parsing and JSON are the same for all).
 */
export async function loopOverhead(runtimes: readonly BenchRuntime[], baseline: BenchRuntime): Promise<void> {
  const tools = benchTools(TOOL_COUNT);
  const server = await startFakeResponsesServer({
    record: false,
    script: (request) => {
      const done = Array.isArray(request.body.input)
        ? (request.body.input as Array<{ type?: string }>).filter(
            (item) => item.type === 'function_call_output',
          ).length
        : 0;
      if (done >= ITERATIONS - 1) return { text: 'All done.' };
      const tool = tools[(done * 7) % tools.length];
      return {
        functionCalls: [{ name: tool?.name ?? '', arguments: { path: `notes/file-${done}.md`, limit: 20 } }],
      };
    },
  });
  try {
    const turn = { baseURL: server.baseURL, tools, instructions: 'You are a benchmark.', input: 'Go.' };
    const contenders = [baseline, ...runtimes].map((runtime) => ({
      name: runtime.name,
      run: runtime.prepare(turn),
    }));
    for (const contender of contenders) {
      const output = await contender.run();
      if (output !== 'All done.') throw new Error(`${contender.name} answered ${JSON.stringify(output)}`);
    }
    const rounds = Number(process.env.BENCH_ROUNDS ?? 60);
    const timings = await interleave(contenders, { rounds, warmup: 8 });
    const [base, ...others] = timings;
    if (base === undefined) return;
    heading(
      `Agent turn: ${ITERATIONS} iterations, ${TOOL_COUNT} tools, fake server (${rounds} interleaved rounds)`,
    );
    report(`${base.name} (baseline), wall`, ms(median(base.runs)), 'per turn (median)');
    report(
      `${base.name} (baseline), CPU`,
      ms(median(base.cpu)),
      'per turn (median; includes the fake server)',
    );
    for (const timing of others) {
      const wall = median(timing.runs) / median(base.runs);
      const cpu = median(timing.cpu) / median(base.cpu);
      const paired = pairedRatio(timing, base);
      report(
        `${timing.name}, wall`,
        ms(median(timing.runs)),
        `${wall.toFixed(3)}x the baseline (paired ${paired.toFixed(3)}x)`,
      );
      report(
        `${timing.name}, CPU`,
        ms(median(timing.cpu)),
        `${cpu.toFixed(3)}x the baseline (paired ${pairedRatio(timing, base, 'cpu').toFixed(3)}x; target <= 1.05x)`,
      );
      report(
        '  CPU overhead per iteration',
        ms((median(timing.cpu) - median(base.cpu)) / ITERATIONS),
        'median difference / iterations',
      );
    }
  } finally {
    await server.close();
  }
}
