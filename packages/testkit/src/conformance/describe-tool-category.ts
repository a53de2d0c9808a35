import type { AnyWorkerAgentTool } from '@switchyard/core';
import { toolKey } from '@switchyard/core/internal';
import { describe, expect, it } from 'vitest';
import { generatedActivityProblems, sampleActivityProblems } from './activity-problems';
import { definitionProblems, nameProblems, schemaProblems, strictnessProblems } from './definition-problems';
import { abortProblems, generatedExecuteProblems, roundTripProblems } from './execute-problems';

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
  /**
   * Of those, how many valid ones `execute` runs with, per tool (default 5; 0: none). They come after
   * the boundary values, which `execute` always runs with: both ends of every numeric range, the
   * shortest and the longest string, every enum member, optional fields absent and present (see
   * the README), each kept when the tool's schema accepts it.
   */
  executeRuns?: number;
  /** The fast-check seed (default 18). */
  seed?: number;
}

type Tools = readonly AnyWorkerAgentTool[];

/**
 * Declares the conformance suite of a tool category, to call at the top level of one of the
 * category's own test files. `create` builds the category's tools (as a turn would); it is called
 * afresh for each check. Each check lists every problem it finds, naming the tool and the fix:
 * at least one tool; valid, unique names and namespaces; a root-object schema for each tool;
 * strict mode or a stated reason (`nonStrict`); a `describeActivity` that returns a non-empty
 * string on every sample, on generated minimal params and, by property (fast-check, fixed seed,
 * `propertyRuns` values), on params generated from the tool's JSON Schema; an `execute` that
 * settles promptly once its signal aborts; results that survive JSON round-tripping; and an
 * `execute` that does not throw, first on every valid boundary value of its schema (always), then
 * on `executeRuns` valid random params.
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
      expect(definitionProblems(tools)).toEqual([]);
    });

    it('gives every tool a valid, unique name', async () => {
      expect(nameProblems(await create())).toEqual([]);
    });

    it('gives every tool a root-object schema', async () => {
      expect(schemaProblems(await create())).toEqual([]);
    });

    it('sends every tool strict, or states why not', async () => {
      expect(strictnessProblems(await create(), options.nonStrict ?? {})).toEqual([]);
    });

    it('describes the activity of every tool on sample and minimal params', async () => {
      expect(sampleActivityProblems(await create(), options)).toEqual([]);
    });

    it('describes the activity of every tool on params generated from its schema', async () => {
      expect(generatedActivityProblems(await create(), seed, propertyRuns)).toEqual([]);
    });

    it('settles promptly when execute is aborted', { timeout: executionTestTimeout }, async () => {
      expect(await abortProblems(await executable(), options, abortTimeoutMs)).toEqual([]);
    });

    it('returns results that survive JSON round-tripping', { timeout: executionTestTimeout }, async () => {
      expect(await roundTripProblems(await executable(), options, executeTimeoutMs)).toEqual([]);
    });

    it(
      'runs execute on boundary values, then random valid params, without throwing, with results that round-trip',
      { timeout: executionTestTimeout },
      async () => {
        const settings = { propertyRuns, executeRuns, seed, executeTimeoutMs };
        expect(await generatedExecuteProblems(await executable(), settings)).toEqual([]);
      },
    );
  });
}
