import type { AnyWorkerAgentTool } from '@switchyard/core';
import { resolveToolParameters, toolKey } from '@switchyard/core/internal';
import fc from 'fast-check';
import type { DescribeToolCategoryOptions } from './describe-tool-category';
import { paramsArbitrary } from './params-arbitrary';
import { parseParams, toolsWithParams } from './tool-params';

/** Why `describeActivity` gave no usable label for `value`, or undefined when it did. */
function labelProblem(tool: AnyWorkerAgentTool, value: unknown): string | undefined {
  try {
    const label = tool.describeActivity(value);
    if (typeof label !== 'string' || label.trim() === '') {
      return `returned ${JSON.stringify(label)}, not a non-empty label`;
    }
  } catch (error) {
    return `threw: ${(error as Error).message}`;
  }
  return undefined;
}

/** `value` as JSON, cut to 300 characters: for messages about generated params. */
export function shortJSON(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 300 ? `${json.slice(0, 300)}… (${json.length} characters)` : json;
}

/** Each tool's `describeActivity` on its samples and its minimal params. */
export function sampleActivityProblems(
  tools: readonly AnyWorkerAgentTool[],
  options: DescribeToolCategoryOptions,
): string[] {
  const problems: string[] = [];
  for (const [tool, params] of toolsWithParams(tools, options, problems)) {
    for (const value of params) {
      const problem = labelProblem(tool, value);
      if (problem !== undefined) {
        problems.push(`tool '${toolKey(tool)}': describeActivity(${JSON.stringify(value)}) ${problem}`);
      }
    }
  }
  return problems;
}

/**
 * Each tool's `describeActivity` on params generated from its JSON Schema, by property: `runs`
 * values from `seed`; a failure is shrunk to a small counterexample, values the schema refuses are skipped.
 */
export function generatedActivityProblems(
  tools: readonly AnyWorkerAgentTool[],
  seed: number,
  runs: number,
): string[] {
  const problems: string[] = [];
  for (const tool of tools) {
    const details = fc.check(
      fc.property(paramsArbitrary(resolveToolParameters(tool).original), (value) => {
        const parsed = parseParams(tool, value);
        if (!parsed.success) return true;
        const problem = labelProblem(tool, parsed.data);
        if (problem !== undefined) throw new Error(problem);
        return true;
      }),
      { seed, numRuns: runs },
    );
    if (details.failed) {
      const value = details.counterexample?.[0];
      const parsed = parseParams(tool, value);
      problems.push(
        `tool '${toolKey(tool)}': describeActivity(${shortJSON(parsed.success ? parsed.data : value)}) ${
          (details.errorInstance as Error | undefined)?.message ?? 'failed'
        } (seed ${seed})`,
      );
    }
  }
  return problems;
}
