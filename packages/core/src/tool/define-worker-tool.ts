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

function checkOptionalBoolean(definition: Record<string, unknown>, field: string, toolName: string): void {
  const value = definition[field];
  if (value !== undefined && typeof value !== 'boolean') {
    throw new ToolDefinitionError({ toolName, field, message: `must be a boolean, got ${typeof value}` });
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
  const raw = definition as unknown as Record<string, unknown>;
  const { name } = definition;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ToolDefinitionError({
      toolName: typeof name === 'string' ? name : undefined,
      field: 'name',
      message: `must match ${TOOL_NAME_PATTERN} (letters, digits, '_' and '-', 1 to 64 characters), got ${JSON.stringify(name)}`,
    });
  }
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'description',
      message: 'must be a non-empty string',
    });
  }
  if (
    (definition.jsonSchema === undefined || definition.schema !== undefined) &&
    !isZodSchema(definition.schema)
  ) {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'schema',
      message: 'must be a Zod object schema',
    });
  }
  const { jsonSchema } = definition;
  if (jsonSchema !== undefined) {
    if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
      throw new ToolDefinitionError({
        toolName: name,
        field: 'jsonSchema',
        message: 'must be a JSON Schema object',
      });
    }
    if (jsonSchema.type !== 'object') {
      throw new ToolDefinitionError({
        toolName: name,
        field: 'jsonSchema',
        message: 'function tool parameters must use a root object schema',
      });
    }
  }
  if (raw.strict !== 'auto') checkOptionalBoolean(raw, 'strict', name);
  checkOptionalBoolean(raw, 'deferLoading', name);
  checkOptionalBoolean(raw, 'isReadOnly', name);
  checkOptionalBoolean(raw, 'isDestructive', name);

  const { namespace, namespaceDescription } = definition;
  if (namespace !== undefined && (typeof namespace !== 'string' || !TOOL_NAME_PATTERN.test(namespace))) {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'namespace',
      message:
        namespace === ''
          ? 'a namespace needs a name (omit the field for no namespace)'
          : `must match ${TOOL_NAME_PATTERN}, got ${JSON.stringify(namespace)}`,
    });
  }
  if (namespaceDescription !== undefined) {
    if (namespace === undefined) {
      throw new ToolDefinitionError({
        toolName: name,
        field: 'namespaceDescription',
        message: 'is set but namespace is not',
      });
    }
    if (typeof namespaceDescription !== 'string' || namespaceDescription.trim() === '') {
      throw new ToolDefinitionError({
        toolName: name,
        field: 'namespaceDescription',
        message: 'must be a non-empty string',
      });
    }
  }

  const executionMode = definition.executionMode ?? 'sequential';
  if (!EXECUTION_MODES.has(executionMode)) {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'executionMode',
      message: `must be 'parallel' or 'sequential', got ${JSON.stringify(executionMode)}`,
    });
  }
  const isReadOnly = definition.isReadOnly ?? false;
  const isDestructive = definition.isDestructive ?? false;
  if (isReadOnly && isDestructive) {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'isDestructive',
      message: 'a read-only tool cannot be destructive',
    });
  }
  if (typeof definition.describeActivity !== 'function') {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'describeActivity',
      message: 'must be a function',
    });
  }
  if (
    definition.describeCompletedActivity !== undefined &&
    typeof definition.describeCompletedActivity !== 'function'
  ) {
    throw new ToolDefinitionError({
      toolName: name,
      field: 'describeCompletedActivity',
      message: 'must be a function',
    });
  }
  if (typeof definition.execute !== 'function') {
    throw new ToolDefinitionError({ toolName: name, field: 'execute', message: 'must be a function' });
  }

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
    describeActivity: definition.describeActivity,
    ...(definition.describeCompletedActivity === undefined
      ? {}
      : { describeCompletedActivity: definition.describeCompletedActivity }),
    execute: async (params, context) => execute(params, context),
  };
  return Object.freeze(tool);
}
