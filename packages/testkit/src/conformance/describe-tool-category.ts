import { type AnyWorkerAgentTool, TOOL_NAME_PATTERN } from '@switchyard/core';
import {
  agentToolMap,
  resolveToolParameters,
  toolKey,
  validateToolArguments,
} from '@switchyard/core/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTestToolContext } from '../create-test-tool-context';
import { minimalParams } from './minimal-params';
import { paramsArbitrary } from './params-arbitrary';

/** Options of `describeToolCategory`, all keyed by tool key (`name`, or `namespace.name`). */
export interface DescribeToolCategoryOptions {
  /**
   * Arguments as the model would send them, per tool. Each is validated through the tool's schema
   * (a sample that does not validate fails the suite). Besides these, the suite generates minimal
   * params from each tool's JSON Schema (required fields only, first enum value, minimum bounds)
   * and uses them when the schema accepts them. A tool with neither fails the suite, asking for a
   * sample. The first valid params of a tool (samples first) are the ones `execute` runs with.
   */
  samples?: Record<string, Array<Record<string, unknown>>>;
  /** Why each tool that is sent non-strict is non-strict (external `jsonSchema` tools need no entry). */
  nonStrict?: Record<string, string>;
  /** Tools whose `execute` cannot run in this test, with the reason (their abort and result checks are left out). */
  skipExecute?: Record<string, string>;
  /** How long an aborted `execute` may take to settle before it counts as hanging (default 2000 ms). */
  abortTimeoutMs?: number;
  /** How long an `execute` may take to return its result (default 5000 ms). */
  executeTimeoutMs?: number;
  /**
   * Generated params per tool for the property checks of `describeActivity` (default 100): values
   * derived from the tool's JSON Schema (empty, long and unicode strings, bounds, optional
   * properties absent and present, enum values, arrays of 0 to 4 items), kept when the tool's
   * schema accepts them. The seed is fixed, so a run is repeatable.
   */
  propertyRuns?: number;
  /** Of those, how many valid ones `execute` runs with, per tool (default 5; 0 turns the check off). */
  executeRuns?: number;
  /** The fast-check seed (default 18). */
  seed?: number;
}

type Tools = readonly AnyWorkerAgentTool[];

type Parsed = { success: true; data: unknown } | { success: false; message: string };

/**
 * Validates params the way the tool's own validation does: a Zod tool's `schema`, or for a
 * JSON-Schema tool core's Ajv validation of its `jsonSchema` (no Zod runs for those).
 */
function parseParams(tool: AnyWorkerAgentTool, value: unknown): Parsed {
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
function generatedParams(tool: AnyWorkerAgentTool, runs: number, limit: number, seed: number): unknown[] {
  const arbitrary = paramsArbitrary(resolveToolParameters(tool).original);
  const valid: unknown[] = [];
  for (const value of fc.sample(arbitrary, { seed, numRuns: runs })) {
    const parsed = parseParams(tool, value);
    if (parsed.success) valid.push(parsed.data);
    if (valid.length >= limit) break;
  }
  return valid;
}

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

function shortJSON(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 300 ? `${json.slice(0, 300)}… (${json.length} characters)` : json;
}

/** Params per tool, or the problem that there are none. */
function paramsFor(tool: AnyWorkerAgentTool, options: DescribeToolCategoryOptions): unknown[] | string {
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
function* toolsWithParams(
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

/**
 * Declares the conformance suite of a tool category, to call at the top level of one of the
 * category's own test files. `create` builds the category's tools (as a turn would); it is called
 * afresh for each check. Each check lists every problem it finds, naming the tool and the fix:
 * at least one tool; valid, unique names and namespaces; a root-object schema for each tool;
 * strict mode or a stated reason (`nonStrict`); a `describeActivity` that returns a non-empty
 * string on every sample, on generated minimal params and, by property (fast-check, fixed seed,
 * `propertyRuns` values), on params generated from the tool's JSON Schema; an `execute` that
 * settles promptly once its signal aborts; results that survive JSON round-tripping; and an
 * `execute` that does not throw on `executeRuns` valid generated params.
 *
 * @example
 * // packages/tools-web/src/conformance.test.ts
 * describeToolCategory('web tools', () => createWebTools({ fetch: fakeFetch, search: fakeSearch }), {
 *   samples: { web_fetch: [{ url: 'https://example.com/' }] },
 *   skipExecute: { web_search: 'needs a provider; covered by web-search-tool.test.ts' },
 * });
 */
export function describeToolCategory(
  name: string,
  create: () => Tools | Promise<Tools>,
  options: DescribeToolCategoryOptions = {},
): void {
  const abortTimeoutMs = options.abortTimeoutMs ?? 2000;
  const executeTimeoutMs = options.executeTimeoutMs ?? 5000;
  const propertyRuns = options.propertyRuns ?? 100;
  const executeRuns = options.executeRuns ?? 5;
  const seed = options.seed ?? 18;
  // Execution checks wait on every tool in turn; vitest's own timeout must not cut them short.
  const executionTestTimeout = 120_000;
  const executable = async () =>
    (await create()).filter((tool) => options.skipExecute?.[toolKey(tool)] === undefined);

  describe(`${name}: tool category conformance`, () => {
    it('creates at least one tool, each a defined worker tool', async () => {
      const tools = await create();
      expect(Array.isArray(tools), 'create() must return an array of tools').toBe(true);
      expect(tools.length, 'create() returned no tools').toBeGreaterThan(0);
      const problems: string[] = [];
      for (const tool of tools) {
        if (typeof tool.execute !== 'function')
          problems.push(`tool '${tool.name}': execute is not a function`);
        if (typeof tool.describeActivity !== 'function')
          problems.push(`tool '${tool.name}': no describeActivity`);
        if (tool.executionMode !== 'parallel' && tool.executionMode !== 'sequential') {
          problems.push(`tool '${tool.name}': executionMode ${String(tool.executionMode)}`);
        }
        if (typeof tool.description !== 'string' || tool.description.trim() === '') {
          problems.push(`tool '${tool.name}': empty description`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('gives every tool a valid, unique name', async () => {
      const tools = await create();
      const problems: string[] = [];
      for (const tool of tools) {
        if (!TOOL_NAME_PATTERN.test(tool.name)) {
          problems.push(`tool name ${JSON.stringify(tool.name)} does not match ${TOOL_NAME_PATTERN}`);
        }
        if (tool.namespace !== undefined && !TOOL_NAME_PATTERN.test(tool.namespace)) {
          problems.push(
            `namespace ${JSON.stringify(tool.namespace)} of '${tool.name}' does not match ${TOOL_NAME_PATTERN}`,
          );
        }
      }
      try {
        agentToolMap(tools);
      } catch (error) {
        problems.push((error as Error).message);
      }
      expect(problems).toEqual([]);
    });

    it('gives every tool a root-object schema', async () => {
      const problems: string[] = [];
      for (const tool of await create()) {
        try {
          const parameters = resolveToolParameters(tool);
          if (parameters.parameters.type !== 'object')
            problems.push(`tool '${toolKey(tool)}': parameters root is not an object`);
        } catch (error) {
          problems.push(`tool '${toolKey(tool)}': ${(error as Error).message}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('sends every tool strict, or states why not', async () => {
      const tools = await create();
      const reasons = options.nonStrict ?? {};
      const problems: string[] = [];
      const keys = new Set<string>();
      for (const tool of tools) {
        const key = toolKey(tool);
        keys.add(key);
        const parameters = resolveToolParameters(tool);
        if (parameters.strict && reasons[key] !== undefined) {
          problems.push(`nonStrict names '${key}', which is sent strict: drop the entry`);
        }
        if (parameters.strict || parameters.external || reasons[key] !== undefined) continue;
        problems.push(
          `tool '${key}' is sent non-strict (${parameters.fallbackReason ?? 'strict: false'}): fix the schema, or state why in nonStrict: { '${key}': '...' }`,
        );
      }
      for (const key of Object.keys(reasons)) {
        if (!keys.has(key)) problems.push(`nonStrict names '${key}', which the category does not create`);
      }
      expect(problems).toEqual([]);
    });

    it('describes the activity of every tool on sample and minimal params', async () => {
      const problems: string[] = [];
      for (const [tool, params] of toolsWithParams(await create(), options, problems)) {
        for (const value of params) {
          const problem = labelProblem(tool, value);
          if (problem !== undefined) {
            problems.push(`tool '${toolKey(tool)}': describeActivity(${JSON.stringify(value)}) ${problem}`);
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('describes the activity of every tool on params generated from its schema', async () => {
      const problems: string[] = [];
      for (const tool of await create()) {
        // fc.check shrinks a failure to a small counterexample; values the schema refuses are skipped.
        const details = fc.check(
          fc.property(paramsArbitrary(resolveToolParameters(tool).original), (value) => {
            const parsed = parseParams(tool, value);
            if (!parsed.success) return true;
            const problem = labelProblem(tool, parsed.data);
            if (problem !== undefined) throw new Error(problem);
            return true;
          }),
          { seed, numRuns: propertyRuns },
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
      expect(problems).toEqual([]);
    });

    it('settles promptly when execute is aborted', { timeout: executionTestTimeout }, async () => {
      const problems: string[] = [];
      for (const [tool, params] of toolsWithParams(await executable(), options, problems)) {
        const context = createTestToolContext({ toolCallId: `call_abort_${tool.name}` });
        const running = Promise.resolve()
          .then(() => tool.execute(params[0], context))
          .then(
            () => 'settled',
            () => 'settled',
          );
        context.controller.abort(new Error('conformance check: aborted'));
        if ((await within(running, abortTimeoutMs)) === timedOut) {
          problems.push(
            `tool '${toolKey(tool)}': execute did not settle within ${abortTimeoutMs} ms of its signal aborting`,
          );
        }
      }
      expect(problems).toEqual([]);
    });

    it('returns results that survive JSON round-tripping', { timeout: executionTestTimeout }, async () => {
      const problems: string[] = [];
      for (const [tool, params] of toolsWithParams(await executable(), options, problems)) {
        const key = toolKey(tool);
        const context = createTestToolContext({ toolCallId: `call_${tool.name}` });
        const outcome = await within(
          Promise.resolve()
            .then(() => tool.execute(params[0], context))
            // A throw is a failure the loop records as an error output: nothing to serialise.
            .then(
              (result) => ({ result }),
              () => undefined,
            ),
          executeTimeoutMs,
        );
        if (outcome === timedOut) {
          context.controller.abort();
          problems.push(`tool '${key}': execute did not finish within ${executeTimeoutMs} ms`);
          continue;
        }
        if (outcome === undefined) continue;
        const problem = resultProblem(key, outcome.result);
        if (problem !== undefined) problems.push(problem);
      }
      expect(problems).toEqual([]);
    });

    it(
      'runs execute on valid generated params without throwing, with results that round-trip',
      { timeout: executionTestTimeout },
      async () => {
        if (executeRuns === 0) return;
        const problems: string[] = [];
        for (const tool of await executable()) {
          const key = toolKey(tool);
          for (const [index, params] of generatedParams(tool, propertyRuns, executeRuns, seed).entries()) {
            const context = createTestToolContext({ toolCallId: `call_generated_${index}_${tool.name}` });
            const outcome = await within(
              Promise.resolve()
                .then(() => tool.execute(params, context))
                .then(
                  (result) => ({ result }),
                  (error: unknown) => ({ error }),
                ),
              executeTimeoutMs,
            );
            if (outcome === timedOut) {
              context.controller.abort();
              problems.push(
                `tool '${key}': execute(${shortJSON(params)}) did not finish within ${executeTimeoutMs} ms`,
              );
              continue;
            }
            if ('error' in outcome) {
              // A tool reports a failure the model can act on as an isError result; a throw is a defect.
              const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
              problems.push(`tool '${key}': execute(${shortJSON(params)}) threw on valid params: ${message}`);
              continue;
            }
            const problem = resultProblem(key, outcome.result);
            if (problem !== undefined) problems.push(`${problem} (params ${shortJSON(params)})`);
          }
        }
        expect(problems).toEqual([]);
      },
    );
  });
}
