import type { z } from 'zod';
import { compileJSONSchema } from '../arguments/validate-tool-arguments';
import { ToolDefinitionError } from '../errors/tool-definition-error';
import { resolveToolParameters } from '../schema/tool-parameters';
import type {
  AgentToolResult,
  JSONSchemaObject,
  JSONSchemaWorkerAgentTool,
  ToolExecutionContext,
  ToolExecutionMode,
  WorkerAgentTool,
  ZodWorkerAgentTool,
} from './worker-agent-tool';

/** Tool and namespace names the Responses API accepts. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** What every tool definition has, however its arguments are validated. */
interface WorkerToolDefinitionBase<TParams, TDetails> {
  /** What the model sees and calls: `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  /** What the tool does; the model reads it to decide whether to call it. */
  description: string;
  /**
   * Enforce the schema in strict mode. Unset: strict when the Zod schema allows it, else a stated
   * fallback; an external `jsonSchema` is sent unchanged. `'auto'`: an external `jsonSchema` too is
   * projected to strict mode when it can be, else sent unchanged with the reason.
   */
  strict?: boolean | 'auto';
  /** Group the tool under a provider namespace (same pattern as a tool name). */
  namespace?: string;
  /** Description of the namespace; requires `namespace`. */
  namespaceDescription?: string;
  /** Keep the schema behind Tool Search until selected. Default false. */
  deferLoading?: boolean;
  /** Default `'sequential'`. */
  executionMode?: ToolExecutionMode;
  /** Default false. */
  isReadOnly?: boolean;
  /** Default false. */
  isDestructive?: boolean;
  /**
   * Running it again with the same `context.idempotencyKey` has no further effect (it passes the key
   * on to what it changes): a resumed turn may run it again when its outcome is unknown. Default false.
   */
  idempotent?: boolean;
  /** A short label while the call runs, e.g. "Reading notes/todo.md". Must not throw. */
  describeActivity(params: TParams): string;
  /** A label that replaces the activity label when done. Must not throw. */
  describeCompletedActivity?(params: TParams, result: AgentToolResult<TDetails>): string;
  /** The work. May return the result directly or a promise of it. */
  execute(
    params: TParams,
    context: ToolExecutionContext,
  ): Promise<AgentToolResult<TDetails>> | AgentToolResult<TDetails>;
}

/**
 * A tool validated by Zod: `execute` receives `z.output` of the schema, so Zod defaults and
 * transforms apply.
 */
export interface ZodWorkerToolDefinition<
  TSchema extends z.ZodType<Record<string, unknown>>,
  TDetails = unknown,
> extends WorkerToolDefinitionBase<z.output<TSchema>, TDetails> {
  /** Zod object schema the arguments are validated against before `execute`. */
  schema: TSchema;
  /** Not with `schema`: a tool has one validation. */
  jsonSchema?: undefined;
}

/**
 * A tool validated by an external JSON Schema alone, with Ajv (e.g. an MCP server's `inputSchema`):
 * `execute` receives the arguments object as it passed validation. No Zod runs, so no Zod defaults
 * or transforms apply, and a JSON Schema `default` is not filled in either. `TParams` is what the
 * caller asserts the schema guarantees; nothing checks that it matches.
 */
export interface JSONSchemaWorkerToolDefinition<
  TParams extends Record<string, unknown> = Record<string, unknown>,
  TDetails = unknown,
> extends WorkerToolDefinitionBase<TParams, TDetails> {
  /** A live external JSON Schema (object root) sent byte-for-byte unchanged and validated with Ajv. */
  jsonSchema: JSONSchemaObject;
  /** Not with `jsonSchema`: the JSON Schema is the only validation. */
  schema?: undefined;
}

/**
 * What `defineWorkerTool` takes: a Zod tool (`schema`) or a JSON-Schema tool (`jsonSchema`), never
 * both.
 */
export type WorkerToolDefinition<
  TSchema extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>,
  TDetails = unknown,
> = ZodWorkerToolDefinition<TSchema, TDetails> | JSONSchemaWorkerToolDefinition<z.output<TSchema>, TDetails>;

const EXECUTION_MODES: ReadonlySet<string> = new Set(['parallel', 'sequential']);

function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as z.ZodType).safeParse === 'function'
  );
}

/** One row of the definition checks: the field it names, when it fails, and what it says then. */
interface DefinitionCheck {
  /** The field a failure names. */
  field: string;
  /** Whether the definition fails this check (the rows before it have passed). */
  fails(definition: Record<string, unknown>): boolean;
  /** The failure's message. */
  message: string | ((definition: Record<string, unknown>) => string);
}

/** A check that `field`, when set, is a boolean. */
function optionalBoolean(field: string): DefinitionCheck {
  return {
    field,
    fails: (definition) => definition[field] !== undefined && typeof definition[field] !== 'boolean',
    message: (definition) => `must be a boolean, got ${typeof definition[field]}`,
  };
}

function isNonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * The checks a definition passes before its schema is converted, in the order they run: the first
 * failing row throws. Every message here is pinned by the tests.
 */
const DEFINITION_CHECKS: readonly DefinitionCheck[] = [
  {
    field: 'name',
    fails: ({ name }) => typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name),
    message: ({ name }) =>
      `must match ${TOOL_NAME_PATTERN} (letters, digits, '_' and '-', 1 to 64 characters), got ${JSON.stringify(name)}`,
  },
  {
    field: 'description',
    fails: ({ description }) => !isNonEmptyString(description),
    message: 'must be a non-empty string',
  },
  {
    // A JSON-Schema tool has no Zod schema; any other definition needs one.
    field: 'schema',
    fails: ({ schema, jsonSchema }) =>
      (jsonSchema === undefined || schema !== undefined) && !isZodSchema(schema),
    message: 'must be a Zod object schema',
  },
  {
    field: 'jsonSchema',
    fails: ({ jsonSchema }) =>
      jsonSchema !== undefined &&
      (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)),
    message: 'must be a JSON Schema object',
  },
  {
    field: 'jsonSchema',
    fails: ({ jsonSchema }) =>
      jsonSchema !== undefined && (jsonSchema as { type?: unknown }).type !== 'object',
    message: 'function tool parameters must use a root object schema',
  },
  // `strict` may also be 'auto'.
  {
    field: 'strict',
    fails: ({ strict }) => strict !== undefined && strict !== 'auto' && typeof strict !== 'boolean',
    message: ({ strict }) => `must be a boolean, got ${typeof strict}`,
  },
  optionalBoolean('deferLoading'),
  optionalBoolean('isReadOnly'),
  optionalBoolean('isDestructive'),
  optionalBoolean('idempotent'),
  {
    field: 'namespace',
    fails: ({ namespace }) =>
      namespace !== undefined && (typeof namespace !== 'string' || !TOOL_NAME_PATTERN.test(namespace)),
    message: ({ namespace }) =>
      namespace === ''
        ? 'a namespace needs a name (omit the field for no namespace)'
        : `must match ${TOOL_NAME_PATTERN}, got ${JSON.stringify(namespace)}`,
  },
  {
    field: 'namespaceDescription',
    fails: ({ namespace, namespaceDescription }) =>
      namespaceDescription !== undefined && namespace === undefined,
    message: 'is set but namespace is not',
  },
  {
    field: 'namespaceDescription',
    fails: ({ namespaceDescription }) =>
      namespaceDescription !== undefined && !isNonEmptyString(namespaceDescription),
    message: 'must be a non-empty string',
  },
  {
    field: 'executionMode',
    fails: ({ executionMode }) => !EXECUTION_MODES.has((executionMode ?? 'sequential') as string),
    message: ({ executionMode }) =>
      `must be 'parallel' or 'sequential', got ${JSON.stringify(executionMode ?? 'sequential')}`,
  },
  {
    field: 'isDestructive',
    fails: ({ isReadOnly, isDestructive }) =>
      (isReadOnly ?? false) === true && (isDestructive ?? false) === true,
    message: 'a read-only tool cannot be destructive',
  },
  {
    field: 'describeActivity',
    fails: ({ describeActivity }) => typeof describeActivity !== 'function',
    message: 'must be a function',
  },
  {
    field: 'describeCompletedActivity',
    fails: ({ describeCompletedActivity }) =>
      describeCompletedActivity !== undefined && typeof describeCompletedActivity !== 'function',
    message: 'must be a function',
  },
  { field: 'execute', fails: ({ execute }) => typeof execute !== 'function', message: 'must be a function' },
];

/** Throws `ToolDefinitionError` for the first row of `DEFINITION_CHECKS` the definition fails. */
function checkDefinition(definition: Record<string, unknown>): void {
  for (const check of DEFINITION_CHECKS) {
    if (!check.fails(definition)) continue;
    const { name } = definition;
    throw new ToolDefinitionError({
      toolName: typeof name === 'string' ? name : undefined,
      field: check.field,
      message: typeof check.message === 'string' ? check.message : check.message(definition),
    });
  }
}

/**
 * Defines a tool the model may call. The definition is checked now, so a bad tool fails at
 * start-up rather than mid-turn, and its schema is converted (once per schema object).
 *
 * Contract: throws `ToolDefinitionError` naming the field for a bad name, a missing description, a
 * schema that is not Zod or has a non-object root, a non-object `jsonSchema`, a namespace without a
 * name, `namespaceDescription` without `namespace`, an unknown execution mode, a tool both
 * read-only and destructive, `strict: true` on a schema strict mode cannot express, or a missing
 * `describeActivity`/`execute`.
 *
 * @example
 * const readNote = defineWorkerTool({
 *   name: 'read_note',
 *   description: 'Read a note by its path.',
 *   schema: z.object({ path: z.string().describe('Path inside the notes folder') }),
 *   executionMode: 'parallel',
 *   isReadOnly: true,
 *   describeActivity: ({ path }) => `Reading ${path}`,
 *   async execute({ path }) {
 *     return { content: await notes.read(path) };
 *   },
 * });
 */
export function defineWorkerTool<TSchema extends z.ZodType<Record<string, unknown>>, TDetails = unknown>(
  definition: ZodWorkerToolDefinition<TSchema, TDetails>,
): ZodWorkerAgentTool<z.output<TSchema>, TDetails>;
export function defineWorkerTool<
  TParams extends Record<string, unknown> = Record<string, unknown>,
  TDetails = unknown,
>(
  definition: JSONSchemaWorkerToolDefinition<TParams, TDetails>,
): JSONSchemaWorkerAgentTool<TParams, TDetails>;
export function defineWorkerTool<TSchema extends z.ZodType<Record<string, unknown>>, TDetails = unknown>(
  definition: WorkerToolDefinition<TSchema, TDetails>,
): WorkerAgentTool<z.output<TSchema>, TDetails> {
  if (typeof definition !== 'object' || definition === null) {
    throw new ToolDefinitionError({ field: 'definition', message: 'must be an object' });
  }
  checkDefinition(definition as unknown as Record<string, unknown>);
  const { name, jsonSchema, namespace, namespaceDescription } = definition;
  const executionMode = definition.executionMode ?? 'sequential';
  const isReadOnly = definition.isReadOnly ?? false;
  const isDestructive = definition.isDestructive ?? false;

  let parameters: ReturnType<typeof resolveToolParameters>;
  try {
    parameters = resolveToolParameters(definition);
  } catch (error) {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'schema',
      message: error instanceof Error ? error.message : String(error),
      cause: error,
    });
  }
  // A schema the validator cannot compile is a configuration mistake: fail now, not at the first call.
  if (jsonSchema !== undefined) compileJSONSchema(name, jsonSchema);
  if (definition.strict === true && !parameters.strict) {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'strict',
      message: `strict mode was requested but ${parameters.fallbackReason ?? 'the schema is not strict-compatible'}`,
    });
  }

  const execute = definition.execute;
  const tool: WorkerAgentTool<z.output<TSchema>, TDetails> = {
    name,
    description: definition.description,
    ...(jsonSchema === undefined
      ? { schema: definition.schema as unknown as z.ZodType<z.output<TSchema>> }
      : { jsonSchema }),
    ...(definition.strict === undefined ? {} : { strict: definition.strict }),
    ...(namespace === undefined ? {} : { namespace }),
    ...(namespaceDescription === undefined ? {} : { namespaceDescription }),
    ...(definition.deferLoading === undefined ? {} : { deferLoading: definition.deferLoading }),
    executionMode,
    isReadOnly,
    isDestructive,
    ...(definition.idempotent === undefined ? {} : { idempotent: definition.idempotent }),
    describeActivity: definition.describeActivity,
    ...(definition.describeCompletedActivity === undefined
      ? {}
      : { describeCompletedActivity: definition.describeCompletedActivity }),
    execute: async (params, context) => execute(params, context),
  };
  return Object.freeze(tool);
}
