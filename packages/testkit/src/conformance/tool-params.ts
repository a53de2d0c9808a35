import type { AnyWorkerAgentTool } from '@switchyard/core';
import { resolveToolParameters, toolKey, validateToolArguments } from '@switchyard/core/internal';
import fc from 'fast-check';
import { boundaryParams } from './boundary-params';
import type { DescribeToolCategoryOptions } from './describe-tool-category';
import { minimalParams } from './minimal-params';
import { paramsArbitrary } from './params-arbitrary';

/** Params parsed by a tool's validation, or why they do not pass it. */
export type Parsed = { success: true; data: unknown } | { success: false; message: string };

/**
 * Validates params the way the tool's own validation does: a Zod tool's `schema`, or for a
 * JSON-Schema tool core's Ajv validation of its `jsonSchema` (no Zod runs for those).
 */
export function parseParams(tool: AnyWorkerAgentTool, value: unknown): Parsed {
  if (tool.schema !== undefined) {
    const parsed = tool.schema.safeParse(value);
    return parsed.success
      ? { success: true, data: parsed.data }
      : { success: false, message: parsed.error.message };
  }
  const raw = JSON.stringify(value);
  if (raw === undefined) return { success: false, message: 'the value is not JSON' };
  const validated = validateToolArguments(tool, raw);
  return validated.ok
    ? { success: true, data: validated.params }
    : { success: false, message: validated.error.message };
}

/**
 * Generated params the tool's schema accepts, as parsed by it, in generation order: at most
 * `limit` of `runs` tries, from a fixed seed.
 */
export function generatedParams(
  tool: AnyWorkerAgentTool,
  runs: number,
  limit: number,
  seed: number,
): unknown[] {
  const arbitrary = paramsArbitrary(resolveToolParameters(tool).original);
  const valid: unknown[] = [];
  for (const value of fc.sample(arbitrary, { seed, numRuns: runs })) {
    const parsed = parseParams(tool, value);
    if (parsed.success) valid.push(parsed.data);
    if (valid.length >= limit) break;
  }
  return valid;
}

/**
 * The tool's boundary params (`boundaryParams` of the JSON Schema the model sees before strict
 * projection) that its schema accepts, as parsed by it, in order.
 */
export function validBoundaryParams(tool: AnyWorkerAgentTool): unknown[] {
  const valid: unknown[] = [];
  for (const value of boundaryParams(resolveToolParameters(tool).original)) {
    const parsed = parseParams(tool, value);
    if (parsed.success) valid.push(parsed.data);
  }
  return valid;
}

/** Params per tool, or the problem that there are none. */
export function paramsFor(
  tool: AnyWorkerAgentTool,
  options: DescribeToolCategoryOptions,
): unknown[] | string {
  const key = toolKey(tool);
  const found: unknown[] = [];
  const samples = options.samples?.[key] ?? [];
  for (const [index, sample] of samples.entries()) {
    const parsed = parseParams(tool, sample);
    if (!parsed.success) return `tool '${key}': samples[${index}] does not validate: ${parsed.message}`;
    found.push(parsed.data);
  }
  const generated = parseParams(tool, minimalParams(resolveToolParameters(tool).original));
  if (generated.success) found.push(generated.data);
  if (found.length === 0) {
    return `tool '${key}': no params to exercise it with: its schema rejects generated minimal params, so pass samples: { '${key}': [{ ... }] }`;
  }
  return found;
}

/**
 * Each tool with its params (see `paramsFor`), in order; a tool without usable params is skipped
 * and its reason added to `problems`.
 */
export function* toolsWithParams(
  tools: Iterable<AnyWorkerAgentTool>,
  options: DescribeToolCategoryOptions,
  problems: string[],
): Generator<[AnyWorkerAgentTool, unknown[]]> {
  for (const tool of tools) {
    const params = paramsFor(tool, options);
    if (typeof params === 'string') problems.push(params);
    else yield [tool, params];
  }
}
