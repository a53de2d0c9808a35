import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { definitionError } from '../__fixtures__/definition-error';
import { validateToolArguments } from '../arguments/validate-tool-arguments';
import { SwitchyardError } from '../errors/switchyard-error';
import { ToolDefinitionError } from '../errors/tool-definition-error';
import {
  defineWorkerTool,
  type JSONSchemaWorkerToolDefinition,
  type ZodWorkerToolDefinition,
} from './define-worker-tool';
import type {
  AgentToolResult,
  JSONSchemaWorkerAgentTool,
  ToolExecutionContext,
  WorkerAgentTool,
  ZodWorkerAgentTool,
} from './worker-agent-tool';

const schema = z.object({ path: z.string(), limit: z.number().int().optional() });

function valid(
  overrides: Partial<ZodWorkerToolDefinition<typeof schema>> = {},
): ZodWorkerToolDefinition<typeof schema> {
  return {
    name: 'read_note',
    description: 'Read a note.',
    schema,
    describeActivity: ({ path }) => `Reading ${path}`,
    execute: ({ path }) => ({ content: path }),
    ...overrides,
  };
}

const pathSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

/** The same tool validated by an external JSON Schema instead of Zod. */
function external(overrides: Partial<JSONSchemaWorkerToolDefinition> = {}): JSONSchemaWorkerToolDefinition {
  const { schema: _zod, ...rest } = valid();
  return { ...rest, jsonSchema: pathSchema, ...overrides };
}

const context: ToolExecutionContext = {
  signal: new AbortController().signal,
  toolCallId: 'call_1',
  idempotencyKey: 'turn_1:1',
  reportProgress: () => {},
};

describe('tool defaults', () => {
  it('fills in sequential, not read-only, not destructive', () => {
    const tool = defineWorkerTool(valid());
    expect(tool.executionMode).toBe('sequential');
    expect(tool.isReadOnly).toBe(false);
    expect(tool.isDestructive).toBe(false);
    expect('strict' in tool).toBe(false);
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it('makes a synchronous execute asynchronous', async () => {
    const tool = defineWorkerTool(valid());
    const pending = tool.execute({ path: 'a.md' }, context);
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).resolves.toEqual({ content: 'a.md' });
  });

  it('keeps the optional fields it was given', () => {
    const optional = {
      namespace: 'notes',
      namespaceDescription: 'Notes',
      deferLoading: true,
      strict: true,
      executionMode: 'parallel',
      isReadOnly: true,
    } as const;
    const tool = defineWorkerTool(valid(optional));
    expect(tool).toMatchObject(optional);
  });
});

describe('contract errors', () => {
  it.each([
    ['name', { name: 'read note' }],
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(65) }],
    ['name', { name: 'notes.read' }],
    ['description', { description: '  ' }],
    ['namespace', { namespace: '' }],
    ['namespace', { namespace: 'my namespace' }],
    ['namespaceDescription', { namespaceDescription: 'Notes' }],
    ['executionMode', { executionMode: 'concurrent' as never }],
    ['isDestructive', { isReadOnly: true, isDestructive: true }],
    ['strict', { strict: 'yes' as never }],
    ['deferLoading', { deferLoading: 1 as never }],
    ['describeActivity', { describeActivity: undefined as never }],
    ['describeCompletedActivity', { describeCompletedActivity: 'done' as never }],
    ['execute', { execute: undefined as never }],
  ])('names the field %s', (field, overrides) => {
    const error = definitionError(() => defineWorkerTool(valid(overrides)));
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
    expect(error.name).toBe('ToolDefinitionError');
  });

  it.each([
    ['jsonSchema', { jsonSchema: { type: 'array' } }],
    ['jsonSchema', { jsonSchema: [] as never }],
    ['schema', { jsonSchema: undefined as never }],
  ])('names the field %s of a JSON-Schema tool', (field, overrides) => {
    const error = definitionError(() => defineWorkerTool(external(overrides)));
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it.each([
    [
      { name: 'read note' },
      `Invalid tool 'read note': name: must match /^[a-zA-Z0-9_-]{1,64}$/ (letters, digits, '_' and '-', 1 to 64 characters), got "read note"`,
    ],
    [
      { name: 7 as never },
      `Invalid tool definition: name: must match /^[a-zA-Z0-9_-]{1,64}$/ (letters, digits, '_' and '-', 1 to 64 characters), got 7`,
    ],
    [{ description: '  ' }, "Invalid tool 'read_note': description: must be a non-empty string"],
    [{ schema: {} as never }, "Invalid tool 'read_note': schema: must be a Zod object schema"],
    [{ jsonSchema: [] as never }, "Invalid tool 'read_note': jsonSchema: must be a JSON Schema object"],
    [
      { jsonSchema: { type: 'array' } as never },
      "Invalid tool 'read_note': jsonSchema: function tool parameters must use a root object schema",
    ],
    [{ strict: 'yes' as never }, "Invalid tool 'read_note': strict: must be a boolean, got string"],
    [{ deferLoading: 1 as never }, "Invalid tool 'read_note': deferLoading: must be a boolean, got number"],
    [{ isReadOnly: 'no' as never }, "Invalid tool 'read_note': isReadOnly: must be a boolean, got string"],
    [
      { isDestructive: null as never },
      "Invalid tool 'read_note': isDestructive: must be a boolean, got object",
    ],
    [
      { namespace: '' },
      "Invalid tool 'read_note': namespace: a namespace needs a name (omit the field for no namespace)",
    ],
    [
      { namespace: 'my space' },
      `Invalid tool 'read_note': namespace: must match /^[a-zA-Z0-9_-]{1,64}$/, got "my space"`,
    ],
    [
      { namespaceDescription: 'Notes' },
      "Invalid tool 'read_note': namespaceDescription: is set but namespace is not",
    ],
    [
      { namespace: 'notes', namespaceDescription: ' ' },
      "Invalid tool 'read_note': namespaceDescription: must be a non-empty string",
    ],
    [
      { executionMode: 'concurrent' as never },
      `Invalid tool 'read_note': executionMode: must be 'parallel' or 'sequential', got "concurrent"`,
    ],
    [
      { isReadOnly: true, isDestructive: true },
      "Invalid tool 'read_note': isDestructive: a read-only tool cannot be destructive",
    ],
    [
      { describeActivity: undefined as never },
      "Invalid tool 'read_note': describeActivity: must be a function",
    ],
    [
      { describeCompletedActivity: 'done' as never },
      "Invalid tool 'read_note': describeCompletedActivity: must be a function",
    ],
    [{ execute: undefined as never }, "Invalid tool 'read_note': execute: must be a function"],
    // The first failing check wins: the name is checked before everything else.
    [
      { name: '', execute: undefined as never },
      `Invalid tool '': name: must match /^[a-zA-Z0-9_-]{1,64}$/ (letters, digits, '_' and '-', 1 to 64 characters), got ""`,
    ],
    [
      { description: '', jsonSchema: [] as never },
      "Invalid tool 'read_note': description: must be a non-empty string",
    ],
  ])('refuses case %# (%j) with its exact message', (overrides, message) => {
    expect(definitionError(() => defineWorkerTool(valid(overrides))).message).toBe(message);
  });

  it('refuses a schema with a non-object root', () => {
    const error = definitionError(() => defineWorkerTool(valid({ schema: z.string() as never })));
    expect(error.field).toBe('schema');
    expect(error.message).toContain('function tool parameters must use a root object schema');
  });

  it('refuses an external schema the validator cannot compile, at definition', () => {
    const error = definitionError(() =>
      defineWorkerTool(
        external({ jsonSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } }),
      ),
    );
    expect(error.field).toBe('jsonSchema');
    expect(error.message).toContain('cannot be compiled');
  });

  it('refuses a schema that is not Zod', () => {
    const error = definitionError(() => defineWorkerTool(valid({ schema: { type: 'object' } as never })));
    expect(error.field).toBe('schema');
  });

  it('refuses a schema JSON Schema cannot express', () => {
    const error = definitionError(() =>
      defineWorkerTool(valid({ schema: z.object({ at: z.date() }) as never })),
    );
    expect(error.field).toBe('schema');
  });

  it('refuses strict: true on a schema strict mode cannot express, with the reason', () => {
    const error = definitionError(() =>
      defineWorkerTool(
        valid({ strict: true, schema: z.object({ tags: z.record(z.string(), z.string()) }) as never }),
      ),
    );
    expect(error.field).toBe('strict');
    expect(error.message).toContain('record');
  });

  it('refuses strict: true on an external schema that is not already strict', () => {
    const error = definitionError(() =>
      defineWorkerTool(
        external({ strict: true, jsonSchema: { type: 'object', properties: { a: { type: 'string' } } } }),
      ),
    );
    expect(error.field).toBe('strict');
  });

  it('marks errors so they are recognised across copies of core', () => {
    const error = definitionError(() => defineWorkerTool(valid({ name: '' })));
    expect(SwitchyardError.isInstance(error)).toBe(true);
    expect(ToolDefinitionError.isInstance(new Error('x'))).toBe(false);
    expect(ToolDefinitionError.isInstance(new SwitchyardError('x'))).toBe(false);
    const lookalike = { [Symbol.for('switchyard.error.ToolDefinitionError')]: true };
    expect(ToolDefinitionError.isInstance(lookalike)).toBe(true);
  });
});

describe('type inference', () => {
  it('gives execute and the labels the output type of the schema', () => {
    const tool = defineWorkerTool({
      name: 'search',
      description: 'Search.',
      schema: z.object({
        query: z.string(),
        limit: z.number().default(10),
        tags: z.array(z.string()).optional(),
      }),
      describeActivity: (params) => {
        expectTypeOf(params).toEqualTypeOf<{ query: string; limit: number; tags?: string[] | undefined }>();
        return params.query;
      },
      execute: async (params, context) => {
        expectTypeOf(params.limit).toEqualTypeOf<number>();
        expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
        return { content: 'ok', details: { hits: 3 } };
      },
      describeCompletedActivity: (_params, result) => {
        expectTypeOf(result).toEqualTypeOf<AgentToolResult<{ hits: number }>>();
        return `Found ${result.details?.hits}`;
      },
    });
    expectTypeOf(tool.execute)
      .parameter(0)
      .toEqualTypeOf<{ query: string; limit: number; tags?: string[] | undefined }>();
    // @ts-expect-error: a string root schema is refused by the types as well
    expect(() => defineWorkerTool({ ...valid(), schema: z.string() })).toThrow();
    expect(tool.name).toBe('search');
  });
});

describe('which validation a tool has', () => {
  const withDefault = z.object({ path: z.string(), limit: z.number().default(10) });

  it('types a Zod tool and a JSON-Schema tool apart, and refuses a definition with both', () => {
    const zodTool = defineWorkerTool({ ...valid(), schema: withDefault, describeActivity: () => 'x' });
    expectTypeOf(zodTool).toEqualTypeOf<ZodWorkerAgentTool<{ path: string; limit: number }, unknown>>();
    expectTypeOf(zodTool).toExtend<WorkerAgentTool<{ path: string; limit: number }>>();

    // A JSON-Schema tool needs no Zod schema.
    const jsonTool = defineWorkerTool({
      name: 'read_note',
      description: 'Read a note.',
      jsonSchema: pathSchema,
      describeActivity: (params) => `Reading ${String(params.path)}`,
      execute: () => ({ content: 'ok' }),
    });
    expectTypeOf(jsonTool).toEqualTypeOf<JSONSchemaWorkerAgentTool<Record<string, unknown>, unknown>>();
    expectTypeOf(jsonTool.schema).toEqualTypeOf<undefined>();

    const both = () =>
      // @ts-expect-error a tool has one validation: `schema` or `jsonSchema`, not both
      defineWorkerTool({ ...valid(), jsonSchema: pathSchema });
    // @ts-expect-error a tool needs one of them
    const neither = () => defineWorkerTool({ ...external(), jsonSchema: undefined });
    expect(typeof both).toBe('function');
    expect(typeof neither).toBe('function');
  });

  it('keeps the Zod schema only on a Zod tool', () => {
    const zodTool = defineWorkerTool(valid());
    const jsonTool = defineWorkerTool(external());
    expect(zodTool.schema).toBe(schema);
    expect('jsonSchema' in zodTool).toBe(false);
    expect(jsonTool.jsonSchema).toBe(pathSchema);
    expect('schema' in jsonTool).toBe(false);
  });

  it('applies Zod defaults for a Zod tool, and none for a JSON-Schema tool (Ajv only)', () => {
    const zodTool = defineWorkerTool({ ...valid(), schema: withDefault, describeActivity: () => 'x' });
    const jsonTool = defineWorkerTool(
      external({
        jsonSchema: {
          type: 'object',
          properties: { path: { type: 'string' }, limit: { type: 'number', default: 10 } },
          required: ['path'],
        },
      }),
    );
    const raw = '{"path":"a.md"}';
    expect(validateToolArguments(zodTool, raw)).toMatchObject({
      ok: true,
      params: { path: 'a.md', limit: 10 },
    });
    const external_ = validateToolArguments(jsonTool, raw);
    expect(external_).toMatchObject({ ok: true, params: { path: 'a.md' } });
    expect(external_.ok && 'limit' in external_.params).toBe(false);
    expect(validateToolArguments(jsonTool, '{"path":1}').ok).toBe(false);
  });
});
