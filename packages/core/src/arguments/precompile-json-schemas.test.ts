// Untrusted JSON Schemas (an MCP server's) are compiled for validation in a worker thread: Ajv's
// compilation takes time that grows faster than a schema's size. These tests run the real thread.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { defineWorkerTool } from '../tool/define-worker-tool';
import type { JSONSchemaObject } from '../tool/worker-agent-tool';
import { precompileJSONSchemas } from './precompile-json-schemas';
import { validateToolArguments } from './validate-tool-arguments';

function toolFor(jsonSchema: JSONSchemaObject) {
  return defineWorkerTool({
    name: 'lookup',
    description: 'Look something up.',
    jsonSchema,
    describeActivity: () => 'Looking up',
    execute: () => ({ content: 'ok' }),
  });
}

const lookupSchema = (): JSONSchemaObject => ({
  type: 'object',
  properties: { query: { type: 'string', minLength: 2 }, limit: { type: 'integer', maximum: 10 } },
  required: ['query'],
  additionalProperties: false,
});

/** An `anyOf` of `branches` small objects: its validator nests one block per branch. */
function anyOfSchema(branches: number): JSONSchemaObject {
  const anyOf = Array.from({ length: branches }, (_, index) => ({
    type: 'object',
    properties: { kind: { const: index } },
  }));
  return { type: 'object', properties: { x: { anyOf } } };
}

async function withLoopDelay<T>(work: () => Promise<T>): Promise<{ value: T; maxDelayMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const value = await work();
    return { value, maxDelayMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

describe('precompileJSONSchemas', () => {
  it('compiles in a thread a validator that refuses and accepts exactly as one compiled here', async () => {
    const offThread = lookupSchema();
    expect(await precompileJSONSchemas([offThread])).toEqual([{ ok: true }]);
    const here = toolFor(lookupSchema());
    const there = toolFor(offThread);
    for (const raw of ['{"query":"x","limit":11,"extra":1}', '{"limit":"3"}', '{"query":"ok","limit":3}']) {
      const expected = validateToolArguments(here, raw);
      const actual = validateToolArguments(there, raw);
      expect(actual.ok).toBe(expected.ok);
      if (!actual.ok && !expected.ok) expect(actual.error.message).toBe(expected.error.message);
    }
    expect(validateToolArguments(there, '{"query":"x"}')).toMatchObject({ ok: false });
  });

  it('keeps the event loop free while a costly schema compiles, and refuses code nested too deep', async () => {
    // 1,000 branches: 1.4 to 1.9 s of compiling and 750 KiB of code nested 1,007 deep.
    // (A generous time limit: under load the compile alone can pass the default 2 s.)
    const { value, maxDelayMs } = await withLoopDelay(() =>
      precompileJSONSchemas([anyOfSchema(1000), anyOfSchema(100)], { schemaTimeoutMs: 60_000 }),
    );
    // A correctness bound (waiting for a core on a loaded machine counts as delay too): compiling
    // here held the loop for seconds.
    expect(maxDelayMs).toBeLessThan(1000);
    expect(value[0]).toEqual({
      ok: false,
      refusal: 'too-large',
      reason: expect.stringMatching(
        /^its validator's code would nest \d{4} blocks deep, over the 256 a schema may compile to$/,
      ),
    });
    expect(value[1]).toEqual({ ok: true });
  });

  it('stops a compilation past its time limit and goes on with a new thread', async () => {
    // 1,000 branches take over a second to compile; a small schema, tens of milliseconds on a fresh
    // thread, a few hundred on a machine loaded ten times over: the limit lies between.
    const slow = anyOfSchema(1000);
    const [stopped, next] = await precompileJSONSchemas([slow, lookupSchema()], { schemaTimeoutMs: 600 });
    expect(stopped).toEqual({
      ok: false,
      refusal: 'too-slow',
      reason: 'compiling it for validation took more than 600 ms',
    });
    expect(next).toEqual({ ok: true });
  });

  it('refuses a schema Ajv cannot compile, and one whose code passes the size limit', async () => {
    const [unresolvable, large] = await precompileJSONSchemas(
      [{ type: 'object', properties: { x: { $ref: '#/definitions/missing' } } }, lookupSchema()],
      { maxValidatorCodeBytes: 100 },
    );
    expect(unresolvable).toMatchObject({ ok: false, refusal: 'invalid' });
    expect(unresolvable?.ok === false && unresolvable.reason).toMatch(
      /^cannot be compiled for validation: can't resolve reference #\/definitions\/missing/,
    );
    expect(large).toMatchObject({ ok: false, refusal: 'too-large' });
    expect(large?.ok === false && large.reason).toMatch(
      /^its validator would be \d+ bytes of code, over the 100/,
    );
  });

  it('refuses a schema nested deeper than 128 levels before any work, and compiles the others', async () => {
    // 2,000 levels of properties: a structured clone of it to the compiler's thread overflows the stack.
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 2_000; level += 1) deep = { type: 'object', properties: { a: deep } };
    let limit: Record<string, unknown> = { type: 'string' };
    // 63 levels of properties: 126 levels of JSON, under the limit.
    for (let level = 0; level < 63; level += 1) limit = { type: 'object', properties: { a: limit } };
    const [refused, kept] = await precompileJSONSchemas([deep, limit]);
    expect(refused).toMatchObject({ ok: false, refusal: 'too-large' });
    expect(refused?.ok === false && refused.reason).toMatch(
      /^it nests deeper than 128 levels \(at #\.properties\.a[.a-z]*\.\.\.\), more than a schema may$/,
    );
    expect(kept).toEqual({ ok: true });
  });
});
