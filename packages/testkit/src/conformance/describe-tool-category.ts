import {
  type AgentToolResult,
  type AnyWorkerAgentTool,
  agentToolMap,
  collectToolSchemas,
  resolveToolParameters,
  TOOL_NAME_PATTERN,
  toolKey,
} from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { createTestToolContext } from '../create-test-tool-context';
import { minimalParams } from './minimal-params';

/** Options of `describeToolCategory`, all keyed by tool key (`name`, or `namespace.name`). */
export interface DescribeToolCategoryOptions {
  /**
   * Arguments as the model would send them, per tool. Each is validated through the tool's schema
   * (a sample that does not validate fails the suite). Besides these, the suite generates minimal
   * params from each tool's JSON Schema (required fields only, first enum value, minimum bounds)
   * and uses them when the schema accepts them. A tool with neither fails the suite, asking for a
   * sample. The first valid params of a tool are the ones `execute` runs with.
   */
  samples?: Record<string, Array<Record<string, unknown>>>;
  /** Why each tool that is sent non-strict is non-strict (external `jsonSchema` tools need no entry). */
  nonStrict?: Record<string, string>;
  /** Tools whose `execute` cannot run in this test, with the reason (their abort and result checks are left out). */
  skipExecute?: Record<string, string>;
  /** How long an aborted `execute` may take to settle before it counts as hanging (default 2000 ms). */
  abortTimeoutMs?: number;
}

type Tools = readonly AnyWorkerAgentTool[];

function paramsFor(tool: AnyWorkerAgentTool, options: DescribeToolCategoryOptions): unknown[] {
  const key = toolKey(tool);
  const found: unknown[] = [];
  (options.samples?.[key] ?? []).forEach((sample, index) => {
    const parsed = tool.schema.safeParse(sample);
    if (!parsed.success) {
      throw new Error(`sample ${index} of tool '${key}' does not validate: ${parsed.error.message}`);
    }
    found.push(parsed.data);
  });
  const { original } = resolveToolParameters(tool);
  const generated = tool.schema.safeParse(minimalParams(original));
  if (generated.success) found.push(generated.data);
  if (found.length === 0) {
    throw new Error(
      `tool '${key}': no params to exercise it with: its schema rejects generated minimal params, so pass samples: { '${key}': [{ ... }] }`,
    );
  }
  return found;
}

async function settleWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms of the abort`)), ms);
  });
  try {
    await Promise.race([
      promise.then(
        () => undefined,
        () => undefined,
      ),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function checkResult(key: string, result: AgentToolResult): void {
  const content = result?.content;
  expect(
    typeof content === 'string' || Array.isArray(content),
    `tool '${key}': result.content must be a string or parts`,
  ).toBe(true);
  let json: string;
  try {
    json = JSON.stringify(result);
  } catch (error) {
    throw new Error(`tool '${key}': its result is not JSON-serialisable: ${(error as Error).message}`);
  }
  expect(JSON.parse(json), `tool '${key}': its result must survive JSON round-tripping`).toEqual(result);
}

/**
 * Declares the conformance suite of a tool category, to call at the top level of one of the
 * category's own test files. `create` builds the category's tools (as a turn would); it is called
 * afresh for each check. The checks: at least one tool; valid, unique names and namespaces; a
 * root-object schema for each tool; strict mode or a stated reason (`nonStrict`); a
 * `describeActivity` that returns a non-empty string on every sample and on generated minimal
 * params; an `execute` that settles promptly once its signal aborts; and results that survive
 * JSON round-tripping.
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
  const executable = async () =>
    (await create()).filter((tool) => options.skipExecute?.[toolKey(tool)] === undefined);

  describe(`${name}: tool category conformance`, () => {
    it('creates at least one tool, each a defined worker tool', async () => {
      const tools = await create();
      expect(Array.isArray(tools), 'create() must return an array of tools').toBe(true);
      expect(tools.length).toBeGreaterThan(0);
      for (const tool of tools) {
        expect(typeof tool.execute, `tool '${tool.name}': execute`).toBe('function');
        expect(typeof tool.describeActivity, `tool '${tool.name}': describeActivity`).toBe('function');
        expect(['parallel', 'sequential'], `tool '${tool.name}': executionMode`).toContain(
          tool.executionMode,
        );
        expect(tool.description.trim(), `tool '${tool.name}': description`).not.toBe('');
      }
    });

    it('gives every tool a valid, unique name', async () => {
      const tools = await create();
      for (const tool of tools) {
        expect(tool.name, `tool name '${tool.name}'`).toMatch(TOOL_NAME_PATTERN);
        if (tool.namespace !== undefined)
          expect(tool.namespace, `namespace of '${tool.name}'`).toMatch(TOOL_NAME_PATTERN);
      }
      expect(() => agentToolMap(tools)).not.toThrow();
    });

    it('gives every tool a root-object schema', async () => {
      for (const tool of await create()) {
        const parameters = resolveToolParameters(tool);
        expect(parameters.original.type, `tool '${toolKey(tool)}': schema root`).toBe('object');
        expect(parameters.parameters.type, `tool '${toolKey(tool)}': parameters root`).toBe('object');
      }
    });

    it('sends every tool strict, or states why not', async () => {
      const tools = await create();
      const manifest = collectToolSchemas(tools, { toolSearch: 'native' });
      const reasons = options.nonStrict ?? {};
      for (const entry of manifest.entries) {
        if (entry.strict || entry.external) continue;
        expect(
          reasons[entry.key],
          `tool '${entry.key}' is sent non-strict (${entry.fallbackReason ?? 'opted out'}): fix the schema, or state why in nonStrict: { '${entry.key}': '...' }`,
        ).toBeTypeOf('string');
      }
      for (const key of Object.keys(reasons)) {
        const entry = manifest.entries.find((candidate) => candidate.key === key);
        expect(entry, `nonStrict names '${key}', which the category does not create`).toBeDefined();
        expect(entry?.strict, `nonStrict names '${key}', which is sent strict: drop the entry`).toBe(false);
      }
    });

    it('describes the activity of every tool on sample and minimal params', async () => {
      for (const tool of await create()) {
        for (const params of paramsFor(tool, options)) {
          const label = tool.describeActivity(params);
          expect(typeof label, `tool '${toolKey(tool)}': describeActivity(${JSON.stringify(params)})`).toBe(
            'string',
          );
          expect(label.trim(), `tool '${toolKey(tool)}': describeActivity label`).not.toBe('');
        }
      }
    });

    it('settles promptly when execute is aborted', async () => {
      for (const tool of await executable()) {
        const [params] = paramsFor(tool, options);
        const context = createTestToolContext({ toolCallId: `call_abort_${tool.name}` });
        const running = Promise.resolve().then(() => tool.execute(params, context));
        context.controller.abort(new Error('conformance: aborted'));
        await settleWithin(running, abortTimeoutMs, `tool '${toolKey(tool)}': execute`);
      }
    });

    it('returns results that survive JSON round-tripping', async () => {
      for (const tool of await executable()) {
        const [params] = paramsFor(tool, options);
        let result: AgentToolResult | undefined;
        try {
          result = await tool.execute(params, createTestToolContext({ toolCallId: `call_${tool.name}` }));
        } catch {
          // A throw is a failure the loop records as an error output; nothing to serialise.
          continue;
        }
        checkResult(toolKey(tool), result);
      }
    });
  });
}
