// The floor of the busy-daemon benchmark, run as a process of its own (`node --import tsx
// floor-process.ts` with FLOOR_PROCESS set) that lives as long as the daemon it is compared with:
// N concurrent turns through the bare openai-SDK loop against the same fake model per job, each
// `list_files` call answered by listing the same home with `readdir`. Reads one job per line of
// standard input and prints one JSON line with what it measured per job.
import { readdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
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
 * The floor as a long-lived process, as the daemon is one: a warm-up turn before the first job (as
 * the daemon gets one before its first level), then `job.turns` bare-loop turns at once per job, so
 * both sides reach each level with the same history (a floor started afresh per level would run
 * every level cold against a daemon warmed by all the levels before it).
 */
export function createFloor(): (job: FloorJob) => Promise<FloorResult> {
  // One client for the process's life, as the daemon keeps one (its connections stay warm).
  const clients = new Map<string, OpenAI>();
  const clientFor = (baseURL: string) => {
    let client = clients.get(baseURL);
    if (client === undefined) {
      client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
      clients.set(baseURL, client);
    }
    return client;
  };
  const turn = (job: FloorJob, input: string) =>
    runBareLoop({
      client: clientFor(job.baseURL),
      instructions: 'You are a worker.',
      input,
      tools: job.tools,
      runCall: async (call) => {
        if (call.name !== 'list_files') return `unknown tool ${call.name}`;
        JSON.parse(call.arguments);
        return listHome(job.home);
      },
    });
  let warm = false;
  return async (job) => {
    if (!warm) {
      await turn(job, 'floor warm-up turn');
      warm = true;
    }
    const failures: string[] = [];
    const turnMs: number[] = [];
    const start = performance.now();
    await Promise.all(
      Array.from({ length: job.turns }, async (_, index) => {
        const turnStart = performance.now();
        try {
          await turn(job, `floor turn ${index}`);
          turnMs.push(performance.now() - turnStart);
        } catch (error) {
          failures.push(failures.length < 3 ? describeError(error).slice(0, 300) : '');
        }
      }),
    );
    return { elapsedMs: performance.now() - start, turnMs, failures };
  };
}

// Run as a process (FLOOR_PROCESS=1): one job per line of standard input (JSON), one result per line
// of standard output, in order, until standard input ends.
if (process.env.FLOOR_PROCESS !== undefined) {
  const runJob = createFloor();
  let queue = Promise.resolve();
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    const job = JSON.parse(line) as FloorJob;
    queue = queue.then(async () => {
      process.stdout.write(`${JSON.stringify(await runJob(job))}\n`);
    });
  }
  await queue;
}
