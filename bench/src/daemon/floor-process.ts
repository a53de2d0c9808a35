// The floor of the busy-daemon benchmark, run as a process of its own (`node --import tsx
// floor-process.ts`): N concurrent turns through the bare openai-SDK loop against the same fake
// model, each `list_files` call answered by listing the same home with `readdir`. Reads its job
// from the JSON file the FLOOR_JOB variable names and prints one JSON line with what it measured.
import { readdir, readFile } from 'node:fs/promises';
import OpenAI from 'openai';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { runBareLoop } from '../runtimes/openai-sdk-loop-runtime';

/** What the floor process is asked to run. */
export interface FloorJob {
  /** The fake Responses server's `/v1` URL. */
  baseURL: string;
  /** Turns started at once. */
  turns: number;
  /** The folder `list_files` lists. */
  home: string;
  /** The tools sent with every request (the daemon's own `tools` array, so request bytes match). */
  tools: FunctionTool[];
}

/** What the floor process measured. */
export interface FloorResult {
  /** From the first turn's start to the last turn's end, ms. */
  elapsedMs: number;
  /** Each turn's time, ms. */
  turnMs: number[];
  /** Turns that threw (their first messages). */
  failures: string[];
}

/** Lists a folder's entries as a careful bare loop would answer `list_files` with pattern `*`. */
async function listHome(home: string): Promise<string> {
  const entries = await readdir(home, { withFileTypes: true });
  return entries
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort()
    .join('\n');
}

/**
 * An error with its causes: the SDK's connection errors say only "Connection error.", and fetch's
 * "fetch failed"; the socket error that names what happened is two causes down.
 */
function describeError(error: unknown): string {
  const parts: string[] = [];
  let current = error as { message?: unknown; code?: unknown; cause?: unknown } | undefined;
  while (current !== undefined && current !== null && parts.length < 4) {
    parts.push(
      `${current.code === undefined ? '' : `${String(current.code)}: `}${String(current.message ?? current)}`,
    );
    current = current.cause as typeof current;
  }
  return parts.join(' <- ');
}

/**
 * Runs one warm-up turn (as the daemon gets one: connections and compiled code are warm in both),
 * then `job.turns` bare-loop turns at once, and measures those.
 */
export async function runFloor(job: FloorJob): Promise<FloorResult> {
  const client = new OpenAI({ baseURL: job.baseURL, apiKey: 'bench', maxRetries: 0 });
  const turn = (input: string) =>
    runBareLoop({
      client,
      instructions: 'You are a worker.',
      input,
      tools: job.tools,
      runCall: async (call) => {
        if (call.name !== 'list_files') return `unknown tool ${call.name}`;
        JSON.parse(call.arguments);
        return listHome(job.home);
      },
    });
  await turn('floor warm-up turn');
  const failures: string[] = [];
  const turnMs: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: job.turns }, async (_, index) => {
      const turnStart = performance.now();
      try {
        await turn(`floor turn ${index}`);
        turnMs.push(performance.now() - turnStart);
      } catch (error) {
        failures.push(failures.length < 3 ? describeError(error).slice(0, 300) : '');
      }
    }),
  );
  return { elapsedMs: performance.now() - start, turnMs, failures };
}

if (process.env.FLOOR_JOB !== undefined) {
  const result = await runFloor(JSON.parse(await readFile(process.env.FLOOR_JOB, 'utf8')) as FloorJob);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
