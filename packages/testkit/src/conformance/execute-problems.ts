import type { AnyWorkerAgentTool } from '@switchyard/core';
import { toolKey } from '@switchyard/core/internal';
import { expect } from 'vitest';
import { createTestToolContext } from '../create-test-tool-context';
import { shortJSON } from './activity-problems';
import type { DescribeToolCategoryOptions } from './describe-tool-category';
import { generatedParams, toolsWithParams, validBoundaryParams } from './tool-params';

type Tools = readonly AnyWorkerAgentTool[];

const timedOut = Symbol('timed out');

async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof timedOut> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<typeof timedOut>((resolve) => {
        timer = setTimeout(() => resolve(timedOut), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `execute` in a fresh context (call id `toolCallId`) and waits at most `ms` for it to settle:
 * its result, what it threw, or `timedOut`, after which its signal is aborted so it can stop. With
 * `abortWith`, the signal is aborted with that reason as soon as the call is made: `execute` starts
 * in a microtask, so it already sees it aborted.
 */
async function executeWithin(
  tool: AnyWorkerAgentTool,
  params: unknown,
  call: { toolCallId: string; ms: number; abortWith?: Error },
): Promise<{ result: unknown } | { error: unknown } | typeof timedOut> {
  const context = createTestToolContext({ toolCallId: call.toolCallId });
  const running = Promise.resolve()
    .then(() => tool.execute(params, context))
    .then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
  if (call.abortWith !== undefined) context.controller.abort(call.abortWith);
  const outcome = await within(running, call.ms);
  if (outcome === timedOut) context.controller.abort();
  return outcome;
}

/** Why a result would not reach the model intact, or undefined when it would. */
function resultProblem(key: string, result: unknown): string | undefined {
  const content = (result as { content?: unknown } | null)?.content;
  if (typeof content !== 'string' && !Array.isArray(content)) {
    return `tool '${key}': result.content must be a string or an array of parts`;
  }
  let json: string;
  try {
    json = JSON.stringify(result);
  } catch (error) {
    return `tool '${key}': its result is not JSON-serialisable: ${(error as Error).message}`;
  }
  try {
    expect(JSON.parse(json)).toEqual(result);
  } catch {
    return `tool '${key}': its result changes when JSON round-tripped (functions, Dates, Maps, class instances, undefined in arrays?)`;
  }
  return undefined;
}

/** Tools whose `execute` does not settle within `abortTimeoutMs` of its signal aborting. */
export async function abortProblems(
  tools: Tools,
  options: DescribeToolCategoryOptions,
  abortTimeoutMs: number,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [tool, params] of toolsWithParams(tools, options, problems)) {
    const running = executeWithin(tool, params[0], {
      toolCallId: `call_abort_${tool.name}`,
      ms: abortTimeoutMs,
      abortWith: new Error('conformance check: aborted'),
    });
    if ((await running) === timedOut) {
      problems.push(
        `tool '${toolKey(tool)}': execute did not settle within ${abortTimeoutMs} ms of its signal aborting`,
      );
    }
  }
  return problems;
}

/** Tools whose `execute` on their first params takes past `executeTimeoutMs` or returns a result that does not round-trip. */
export async function roundTripProblems(
  tools: Tools,
  options: DescribeToolCategoryOptions,
  executeTimeoutMs: number,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [tool, params] of toolsWithParams(tools, options, problems)) {
    const key = toolKey(tool);
    const outcome = await executeWithin(tool, params[0], {
      toolCallId: `call_${tool.name}`,
      ms: executeTimeoutMs,
    });
    if (outcome === timedOut) {
      problems.push(`tool '${key}': execute did not finish within ${executeTimeoutMs} ms`);
      continue;
    }
    // A throw is a failure the loop records as an error output: nothing to serialise.
    if ('error' in outcome) continue;
    const problem = resultProblem(key, outcome.result);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}

/**
 * Tools whose `execute` throws, takes past `executeTimeoutMs` or returns a result that does not
 * round-trip: first on every valid boundary value of its schema (`validBoundaryParams`: both ends
 * of each range, the longest string, each enum member, optional fields absent and present), always,
 * then on up to `executeRuns` valid random params (`propertyRuns` tries from `seed`).
 */
export async function generatedExecuteProblems(
  tools: Tools,
  settings: { propertyRuns: number; executeRuns: number; seed: number; executeTimeoutMs: number },
): Promise<string[]> {
  const { propertyRuns, executeRuns, seed, executeTimeoutMs } = settings;
  const problems: string[] = [];
  for (const tool of tools) {
    const key = toolKey(tool);
    const boundary = validBoundaryParams(tool).map((params) => ({ params, kind: 'boundary params' }));
    const random = (executeRuns > 0 ? generatedParams(tool, propertyRuns, executeRuns, seed) : []).map(
      (params) => ({ params, kind: 'params' }),
    );
    for (const [index, { params, kind }] of [...boundary, ...random].entries()) {
      const toolCallId = `call_generated_${index}_${tool.name}`;
      const outcome = await executeWithin(tool, params, { toolCallId, ms: executeTimeoutMs });
      if (outcome === timedOut) {
        problems.push(
          `tool '${key}': execute(${shortJSON(params)}) did not finish within ${executeTimeoutMs} ms`,
        );
        continue;
      }
      if ('error' in outcome) {
        // A tool reports a failure the model can act on as an isError result; a throw is a defect.
        const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
        problems.push(`tool '${key}': execute(${shortJSON(params)}) threw on valid ${kind}: ${message}`);
        continue;
      }
      const problem = resultProblem(key, outcome.result);
      if (problem !== undefined) problems.push(`${problem} (${kind} ${shortJSON(params)})`);
    }
  }
  return problems;
}
