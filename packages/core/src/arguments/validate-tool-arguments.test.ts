import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definitionError } from '../__fixtures__/definition-error';
import { ToolArgumentsError } from '../errors/tool-arguments-error';
import { defineWorkerTool } from '../tool/define-worker-tool';
import type { AnyWorkerAgentTool, JSONSchemaObject } from '../tool/worker-agent-tool';
import { validateToolArguments } from './validate-tool-arguments';

function zodTool<TSchema extends z.ZodType<Record<string, unknown>>>(
  schema: TSchema,
  extra: { name?: string; strict?: boolean } = {},
) {
  return defineWorkerTool({
    name: extra.name ?? 'write_file',
    description: 'Write a file.',
    schema,
    ...(extra.strict === undefined ? {} : { strict: extra.strict }),
    describeActivity: () => 'Writing',
    execute: () => ({ content: 'ok' }),
  });
}

function externalTool(jsonSchema: JSONSchemaObject, name = 'mcp_tool') {
  return defineWorkerTool({
    name,
    description: 'An external tool.',
    jsonSchema,
    describeActivity: () => 'Calling',
    execute: () => ({ content: 'ok' }),
  });
}

function failure(result: ReturnType<typeof validateToolArguments>): ToolArgumentsError {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.error;
}

const writeFile = zodTool(
  z.object({
    path: z.string(),
    content: z.string(),
    mode: z.enum(['overwrite', 'append']).default('overwrite'),
    encoding: z.string().optional(),
    note: z.string().nullable().optional(),
  }),
);

describe('validation with a Zod schema', () => {
  it('returns the parsed parameters of clean input with no repairs', () => {
    expect(validateToolArguments(writeFile, '{"path": "a.md", "content": "hi", "mode": "append"}')).toEqual({
      ok: true,
      params: { path: 'a.md', content: 'hi', mode: 'append' },
      repairs: [],
    });
  });

  it('maps the nulls strict mode forces for optional fields back to absent, so defaults apply', () => {
    const raw = '{"path": "a.md", "content": "hi", "mode": null, "encoding": null, "note": null}';
    const result = validateToolArguments(writeFile, raw);
    // `note` accepts null in the original schema, so its null is kept.
    expect(result).toEqual({
      ok: true,
      params: { path: 'a.md', content: 'hi', mode: 'overwrite', note: null },
      repairs: [],
    });
  });

  it('does not map nulls back for a tool that opted out of strict mode', () => {
    const tool = zodTool(z.object({ path: z.string(), limit: z.number().optional() }), { strict: false });
    const error = failure(validateToolArguments(tool, '{"path": "a", "limit": null}'));
    expect(error.issues).toEqual([{ path: '/limit', message: 'expected number, received null' }]);
  });

  it('reports repairs along with the parameters', () => {
    const result = validateToolArguments(writeFile, '```json\n{"path": "a.md", "content": "hi",}\n```');
    expect(result).toEqual({
      ok: true,
      params: { path: 'a.md', content: 'hi', mode: 'overwrite' },
      repairs: ['strip-code-fence', 'trailing-comma'],
    });
  });

  it('lists each problem as a JSON pointer and what was expected', () => {
    const tool = zodTool(
      z.strictObject({
        items: z.array(z.object({ name: z.string(), size: z.number().int().min(1) })),
        mode: z.enum(['a', 'b']),
      }),
      { name: 'batch' },
    );
    const error = failure(
      validateToolArguments(
        tool,
        '{"items": [{"name": 1, "size": 0}, {"size": 2}], "mode": "c", "extra/key": true}',
      ),
    );
    expect(error.reason).toBe('invalid-arguments');
    expect(error.toolName).toBe('batch');
    expect(error.issues).toEqual([
      { path: '/items/0/name', message: 'expected string, received number' },
      { path: '/items/0/size', message: 'Too small: expected number to be >=1' },
      { path: '/items/1/name', message: 'missing: expected string' },
      { path: '/mode', message: 'Invalid option: expected one of "a"|"b"' },
      { path: '/extra~1key', message: 'unexpected property: the schema does not allow it' },
    ]);
    expect(error.message).toContain("Invalid arguments for tool 'batch'");
    expect(error.message).toContain('- /items/0/name: expected string, received number');
  });

  it('lists the first 20 problems and counts the rest, for a Zod and an external schema alike', () => {
    // 99,999 items that each fail: under the ladder's value cap, every one a problem of its own.
    const raw = JSON.stringify({ todos: Array(99_999).fill(1) });
    const zod = zodTool(z.object({ todos: z.array(z.object({ content: z.string() })) }), { name: 'todos' });
    const external = externalTool({
      type: 'object',
      properties: { todos: { type: 'array', items: { type: 'object' } } },
      required: ['todos'],
    });
    for (const tool of [zod, external]) {
      const { issues } = failure(validateToolArguments(tool, raw));
      expect(issues).toHaveLength(21);
      expect(issues[0]?.path).toBe('/todos/0');
      expect(issues[19]?.path).toBe('/todos/19');
      expect(issues[20]).toEqual({ path: '', message: '99979 more problems not listed' });
    }
  });

  it('never echoes the raw input: it gives its length, and each problem by pointer and kind', () => {
    const raw = JSON.stringify({ path: 1, content: `SECRET-${'x'.repeat(5000)}` });
    const error = failure(validateToolArguments(writeFile, raw));
    expect(error.message).toContain('- /path: expected string, received number');
    expect(error.message).toContain(`Received: ${raw.length} characters (not repeated here`);
    expect(error.message).not.toContain('SECRET');
    expect(error.message).not.toContain('xxx');
    expect(error.message.length).toBeLessThan(400);
  });

  // Each refusal of the ladder, with the model's text (SECRET) where the problem is: the message
  // says where and what kind of thing is wrong, and carries none of that text.
  it.each([
    [
      'prose before the object',
      'SECRET here you go: {"path": "a"}',
      'prose-before-object',
      /a word of 6 characters at character 1\) before the JSON object at character 21/,
    ],
    [
      'not JSON at all',
      'SECRET words only',
      'invalid-json',
      /start with a word of 6 characters, and hold no "\{"/,
    ],
    [
      'an unquoted value',
      '{"path": SECRETvalue}',
      'invalid-json',
      /Unquoted text \(a word of 11 characters\) at character 10 at \/path/,
    ],
    ['trailing content', '{"path": "a"} SECRET {"path": "b"', 'trailing-content', /from character 15 of 33/],
    [
      'a leading zero',
      '{"path": 000123}',
      'leading-zero-number',
      /number at character 10 at \/path \(6 characters\)/,
    ],
    [
      'an unexpected character',
      '{"path" SECRET}',
      'invalid-json',
      /at character 9: expected ":" after the key, found a letter/,
    ],
    [
      'a duplicate key',
      '{"path": "SECRET", "path": "SECRET"}',
      'duplicate-key',
      /The key \/path appears more than once in its object \(again at character 20\)/,
    ],
    ['a cut after a key', '{"path": "SECRET", "content"', 'truncated', /after the key \/content/],
    [
      'an envelope for another tool',
      '{"name": "SECRET other tool", "arguments": {}}',
      'envelope-for-other-tool',
      /a call envelope for another tool/,
    ],
  ])('%s: says where and what, without the text', (_case, raw, reason, description) => {
    const error = failure(validateToolArguments(writeFile, raw));
    expect(error.reason).toBe(reason);
    expect(error.message).toMatch(description);
    expect(error.message).not.toContain('SECRET');
    expect(error.message).toContain(`Received: ${raw.length} characters`);
  });

  it('names an envelope tool that looks like a tool name', () => {
    const error = failure(validateToolArguments(writeFile, '{"name": "read_file", "arguments": {}}'));
    expect(error.message).toContain('a call envelope for the tool "read_file"');
  });

  it('turns a ladder refusal into an error with its reason', () => {
    const error = failure(validateToolArguments(writeFile, '{"path": "a.md", "content": "# Ti'));
    expect(ToolArgumentsError.isInstance(error)).toBe(true);
    expect(error.reason).toBe('truncated');
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toBe('');
    expect(error.message).toContain("tool 'write_file'");
    expect(error.message).toContain('cut off');
  });

  it('passes the finish reason to the ladder', () => {
    const raw = '{"path": "a.md", "content": "done"';
    expect(validateToolArguments(writeFile, raw).ok).toBe(true);
    expect(failure(validateToolArguments(writeFile, raw, { finishReason: 'length' })).reason).toBe(
      'truncated',
    );
  });

  it('still enforces required fields for no arguments', () => {
    const error = failure(validateToolArguments(writeFile, ''));
    expect(error.issues.map((issue) => issue.path)).toEqual(['/path', '/content']);
  });

  it('unwraps an envelope using the properties the schema declares', () => {
    const raw = JSON.stringify({ name: 'write_file', arguments: { path: 'a.md', content: 'hi' } });
    expect(validateToolArguments(writeFile, raw)).toMatchObject({ ok: true, repairs: ['unwrap-envelope'] });
    const other = JSON.stringify({ name: 'delete_file', arguments: { path: 'a.md' } });
    expect(failure(validateToolArguments(writeFile, other)).reason).toBe('envelope-for-other-tool');
  });

  it('does not unwrap when the tool itself declares name and arguments', () => {
    const tool = zodTool(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }), {
      name: 'start_job',
    });
    const raw = '{"name": "other", "arguments": {"x": 1}}';
    expect(validateToolArguments(tool, raw)).toEqual({
      ok: true,
      params: { name: 'other', arguments: { x: 1 } },
      repairs: [],
    });
  });
});

describe('undeclared keys', () => {
  const createLabel = zodTool(z.object({ name: z.string(), color: z.string().optional() }), {
    name: 'create_label',
  });

  it('refuses a key the schema does not declare instead of silently dropping it', () => {
    // The tool declares `name`, so the ladder must not unwrap this envelope; stripping `arguments`
    // would run create_label with name "create_label".
    const error = failure(
      validateToolArguments(
        createLabel,
        '{"name":"create_label","arguments":{"name":"urgent","color":"red"}}',
      ),
    );
    expect(error.issues).toEqual([
      { path: '/arguments', message: 'unknown property: this tool takes only name, color' },
    ]);
  });

  it('passes undeclared keys through an open schema', () => {
    const open = zodTool(z.looseObject({ name: z.string() }), { name: 'open_tool' });
    const result = validateToolArguments(open, '{"name":"a","extra":1}');
    expect(result.ok && result.params).toEqual({ name: 'a', extra: 1 });
  });
});

describe('validation with an external JSON Schema', () => {
  const draft07 = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 2 },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      order: { enum: ['asc', 'desc'] },
      url: { type: 'string', format: 'uri' },
    },
    required: ['query'],
    additionalProperties: false,
  };

  it('validates against the JSON Schema, not the Zod one, and keeps every property', () => {
    const tool = externalTool(draft07);
    expect(validateToolArguments(tool, '{"query": "cats", "limit": 5, "url": "not checked"}')).toEqual({
      ok: true,
      params: { query: 'cats', limit: 5, url: 'not checked' },
      repairs: [],
    });
  });

  it('translates JSON Schema errors into pointers and expectations', () => {
    const error = failure(
      validateToolArguments(externalTool(draft07), '{"limit": 0, "order": "up", "x": 1}'),
    );
    expect(error.reason).toBe('invalid-arguments');
    expect(error.issues).toEqual([
      { path: '/query', message: 'missing: this property is required' },
      { path: '/x', message: 'unexpected property: the schema does not allow it' },
      { path: '/limit', message: 'expected a value that must be >= 1' },
      { path: '/order', message: 'expected one of "asc", "desc"' },
    ]);
    expect(error.message).toContain("tool 'mcp_tool'");
  });

  it('validates 2020-12 schemas with their own keywords', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
      },
      properties: { from: { $ref: '#/$defs/point' }, label: { type: 'string' } },
      required: ['from'],
      unevaluatedProperties: false,
    };
    const tool = externalTool(schema, 'plot');
    expect(validateToolArguments(tool, '{"from": [1, 2], "label": "a"}').ok).toBe(true);
    const error = failure(validateToolArguments(tool, '{"from": [1, "2", 3], "color": "red"}'));
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: '/from/1', message: 'expected number' },
        { path: '/color', message: 'unexpected property: the schema does not allow it' },
      ]),
    );
  });

  it('lets two tools share a schema $id', () => {
    const schema = {
      $id: 'https://example.test/search',
      type: 'object',
      properties: { q: { type: 'string' } },
    };
    const first = externalTool({ ...schema }, 'search_a');
    const second = externalTool({ ...schema }, 'search_b');
    expect(validateToolArguments(first, '{"q": "a"}').ok).toBe(true);
    expect(validateToolArguments(second, '{"q": 1}').ok).toBe(false);
  });

  it('throws ToolDefinitionError naming jsonSchema when the schema cannot be compiled (at definition)', () => {
    const error = definitionError(() =>
      externalTool({ type: 'object', properties: { a: { type: 'strin' } } }, 'broken'),
    );
    expect(error.field).toBe('jsonSchema');
  });
});

describe('constraints moved out of a strict schema', () => {
  it('still enforces a Zod length limit the projection moved into the description', () => {
    const rename = zodTool(z.object({ title: z.string().max(5) }), { name: 'rename' });
    expect(validateToolArguments(rename, '{"title":"short"}')).toMatchObject({ ok: true });
    const error = failure(validateToolArguments(rename, '{"title":"far too long"}'));
    expect(error.reason).toBe('invalid-arguments');
    expect(error.issues[0]?.path).toBe('/title');
    expect(error.message).toMatch(/\/title: .*5/);
  });

  it("maps nulls back and enforces the original constraints for an external schema with strict: 'auto'", () => {
    const tree = defineWorkerTool({
      name: 'tree',
      description: 'A tree.',
      jsonSchema: {
        type: 'object',
        properties: { path: { type: 'string', minLength: 2 }, depth: { type: 'integer' } },
        required: ['path'],
        additionalProperties: false,
      },
      strict: 'auto',
      describeActivity: () => 'Listing',
      execute: () => ({ content: 'ok' }),
    });
    expect(validateToolArguments(tree, '{"path":"ab","depth":null}')).toEqual({
      ok: true,
      params: { path: 'ab' },
      repairs: [],
    });
    const error = failure(validateToolArguments(tree, '{"path":"a","depth":null}'));
    expect(error.issues.map((issue) => issue.path)).toEqual(['/path']);
  });
});

describe('finite JSON values only', () => {
  // Both schemas accept any number, as many MCP servers' schemas do: the refusal must come from
  // core, not from a bound that happens to be there.
  const openZod = zodTool(z.object({ price: z.unknown(), tags: z.array(z.unknown()).optional() }), {
    name: 'submit_result',
  });
  const openExternal = externalTool(
    { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] },
    'record_price',
  );

  it.each([
    ['a Zod schema', openZod as AnyWorkerAgentTool],
    ['an external JSON Schema (Ajv)', openExternal as AnyWorkerAgentTool],
  ])('refuses 1e999 for %s with a JSON-pointer message the model can act on', (_, tool) => {
    const error = failure(validateToolArguments(tool, '{"price": 1e999}'));
    expect(error.reason).toBe('non-finite-number');
    expect(error.issues).toEqual([
      { path: '/price', message: expect.stringMatching(/^number is not finite/) },
    ]);
    expect(error.message).toContain('- /price: number is not finite (1e999 overflows)');
    expect(error.message).toContain('nothing was run');
  });

  it('refuses a non-finite number nested in an array for a Zod schema', () => {
    const error = failure(validateToolArguments(openZod, '{"price": 1, "tags": ["a", -1e400]}'));
    expect(error.issues[0]?.path).toBe('/tags/1');
  });

  it('accepts what a JSON round trip keeps the same', () => {
    const result = validateToolArguments(openExternal, '{"price": 1.5e300}');
    expect(result).toEqual({ ok: true, params: { price: 1.5e300 }, repairs: [] });
    expect(result.ok && JSON.parse(JSON.stringify(result.params))).toEqual({ price: 1.5e300 });
  });
});
