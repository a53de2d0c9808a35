// `strict: 'auto'` on a server: its tools' schemas go out as core's strict projection, while the
// server's own schema still validates every call. Real stdio server, real openai SDK, fake model.
import { collectToolSchemas } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { calcStdio, connectForSuite } from './__fixtures__/connect-for-suite';
import { runOnFakeModel } from './__fixtures__/run-on-fake-model';
import { createMcpTools } from './create-mcp-tools';

const suite = connectForSuite({ strict: calcStdio({ strict: 'auto' }), plain: calcStdio() });

describe("strict: 'auto'", () => {
  it('sends the projection of every schema that has one, strict, and leaves the other server unchanged', () => {
    const manifest = collectToolSchemas(createMcpTools({ servers: suite.servers }));
    const entry = (key: string) => manifest.entries.find((candidate) => candidate.key === key);
    expect(entry('strict.big')).toMatchObject({ strict: true, external: true });
    expect(entry('strict.big')?.fallbackReason).toBeUndefined();
    expect(entry('plain.big')).toMatchObject({
      strict: false,
      external: true,
      fallbackReason: 'external schema sent unchanged',
    });
    const strictTools = manifest.tools.find((tool) => tool.type === 'namespace' && tool.name === 'strict');
    const big =
      strictTools?.type === 'namespace' ? strictTools.tools.find((tool) => tool.name === 'big') : undefined;
    expect(big).toMatchObject({
      strict: true,
      parameters: {
        type: 'object',
        properties: { bytes: { type: ['integer', 'null'], minimum: 8 } },
        required: ['bytes'],
        additionalProperties: false,
      },
    });
    // The server's schema object itself is untouched.
    expect(
      createMcpTools({ servers: suite.servers }).find(
        (tool) => tool.namespace === 'strict' && tool.name === 'big',
      )?.jsonSchema,
    ).toEqual({ type: 'object', properties: { bytes: { type: 'integer', minimum: 8 } } });
  });

  it('maps the null of an optional property back to absent and still enforces the server schema', async () => {
    const script = [
      {
        functionCalls: [
          { name: 'big', namespace: 'strict', arguments: { bytes: null }, callId: 'c1' },
          { name: 'big', namespace: 'strict', arguments: { bytes: 3 }, callId: 'c2' },
        ],
      },
      { text: 'done' },
    ];
    const tools = createMcpTools({ servers: suite.servers });
    await runOnFakeModel({ script, tools, input: 'Get a small result.' }, async ({ run, fake }) => {
      expect((await run.result()).status).toBe('completed');
      const outputs = fake.requests[1]?.functionCallOutputs ?? [];
      // No bytes given: the server's default of 8 applies.
      expect(outputs[0]?.output).toEqual([{ type: 'input_text', text: 'BEGINEND' }]);
      expect(JSON.stringify(outputs[1]?.output)).toMatch(/\/bytes: .*8/);
    });
  });
});
