import type { ValidateFunction } from 'ajv';
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019.js';
import Ajv2020 from 'ajv/dist/2020.js';
import type { z } from 'zod';
import { type ToolArgumentIssue, ToolArgumentsError } from '../errors/tool-arguments-error';
import { ToolDefinitionError } from '../errors/tool-definition-error';
import { resolveToolParameters } from '../schema/tool-parameters';
import { isPlainObject } from '../shared/is-plain-object';
import type { JSONSchemaObject, WorkerAgentTool } from '../tool/worker-agent-tool';
import { compileNullRestorer, type NullRestorer } from './compile-null-restorer';
import { issueFromAjvError } from './issue-from-ajv-error';
import { escapePointerSegment, toJSONPointer } from './json-pointer';
import {
  type ArgumentRepair,
  type ParseToolArgumentsOptions,
  parseToolArguments,
} from './parse-tool-arguments';

/** The outcome of `validateToolArguments`. */
export type ValidateToolArgumentsResult<TParams> =
  | {
      /** The arguments are valid. */
      ok: true;
      /** What `execute` receives: the schema's output (defaults applied). */
      params: TParams;
      /** The repair steps the ladder applied; empty for clean JSON. */
      repairs: ArgumentRepair[];
    }
  | {
      /** The arguments were refused or do not match the schema. */
      ok: false;
      /** Why, with a message written for the model. */
      error: ToolArgumentsError;
    };

/** What `validateToolArguments` may know about the call. */
export interface ValidateToolArgumentsOptions {
  /** The model response's finish reason; `length` or `max_output_tokens` means it was cut off. */
  finishReason?: string;
}

/** At most this many issues are listed; the rest are counted. */
const MAX_ISSUES = 20;

type CheckResult = { ok: true; params: unknown } | { ok: false; issues: ToolArgumentIssue[] };

interface ToolValidator {
  readonly parseOptions: ParseToolArgumentsOptions;
  /** `noNulls`: the input is known to hold no `null`, so there is nothing to map back. */
  check(value: Record<string, unknown>, noNulls: boolean): CheckResult;
}

// Per tool object: this runs on every call, so the schema work happens once per tool.
const validators = new WeakMap<object, ToolValidator>();
// Per external schema object: creators that rebuild tools every turn usually keep the schema.
const compiledSchemas = new WeakMap<object, ValidateFunction>();

type AjvInstance = InstanceType<typeof Ajv>;
const ajvInstances = new Map<string, AjvInstance>();

/** The JSON Schema dialect of an external schema, by its `$schema` (draft-07 when it names none). */
export function jsonSchemaDraft(schema: JSONSchemaObject): '2020-12' | '2019-09' | 'draft-07' {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  return dialect.includes('2020-12') ? '2020-12' : dialect.includes('2019-09') ? '2019-09' : 'draft-07';
}

/**
 * Ajv's options for external schemas (here and in the thread that compiles them off the event loop).
 * MCP servers send schemas written for other validators: unknown keywords and formats are ignored
 * rather than refused, and `$id`s are not registered (two tools may share one).
 */
export const EXTERNAL_SCHEMA_AJV_OPTIONS = {
  strict: false,
  allErrors: true,
  validateFormats: false,
  validateSchema: false,
  addUsedSchema: false,
  logger: false as const,
};

/** Internal: a validator compiled elsewhere (off the event loop) for `schema`, used from now on. */
export function registerCompiledJSONSchema(schema: JSONSchemaObject, validate: ValidateFunction): void {
  compiledSchemas.set(schema, validate);
}

/** Internal: whether `schema` already has its validator. */
export function hasCompiledJSONSchema(schema: JSONSchemaObject): boolean {
  return compiledSchemas.has(schema);
}

function ajvFor(schema: JSONSchemaObject): AjvInstance {
  const draft = jsonSchemaDraft(schema);
  let instance = ajvInstances.get(draft);
  if (instance === undefined) {
    const options = EXTERNAL_SCHEMA_AJV_OPTIONS;
    instance =
      draft === '2020-12'
        ? new Ajv2020(options)
        : draft === '2019-09'
          ? new Ajv2019(options)
          : new Ajv(options);
    ajvInstances.set(draft, instance);
  }
  return instance;
}

/** Internal: compiles (once per schema object) the validator of an external JSON Schema. */
export function compileJSONSchema(toolName: string, schema: JSONSchemaObject): ValidateFunction {
  let validate = compiledSchemas.get(schema);
  if (validate === undefined) {
    const ajv = ajvFor(schema);
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      throw new ToolDefinitionError({
        toolName,
        field: 'jsonSchema',
        message: `cannot be compiled for validation: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
    // The compiled function keeps what it needs; dropping Ajv's own cache entry lets the schema go.
    ajv.removeSchema(schema);
    compiledSchemas.set(schema, validate);
  }
  return validate;
}

/** `issues` and `unlisted` more at most `MAX_ISSUES` long: past it, the first ones and a count of the rest. */
function capIssues(issues: ToolArgumentIssue[], unlisted = 0): ToolArgumentIssue[] {
  const total = issues.length + unlisted;
  if (total <= MAX_ISSUES) return issues;
  return [
    ...issues.slice(0, MAX_ISSUES),
    { path: '', message: `${total - MAX_ISSUES} more problems not listed` },
  ];
}

/**
 * A validator's problems mapped until `MAX_ISSUES` are listed, the rest only counted (`count`): an
 * array of 100,000 items can fail every one, and only the first few are shown.
 */
function mapCapped<T>(
  problems: readonly T[],
  map: (problem: T) => ToolArgumentIssue[],
  count: (problem: T) => number,
): { listed: ToolArgumentIssue[]; unlisted: number } {
  const listed: ToolArgumentIssue[] = [];
  let unlisted = 0;
  for (const problem of problems) {
    if (listed.length < MAX_ISSUES) listed.push(...map(problem));
    else unlisted += count(problem);
  }
  return { listed, unlisted };
}

/** How many issues `fromZodIssue` makes of one Zod issue. */
function zodIssueCount(issue: z.core.$ZodIssue): number {
  return issue.code === 'unrecognized_keys' ? issue.keys.length : 1;
}

function fromZodIssue(issue: z.core.$ZodIssue): ToolArgumentIssue[] {
  const path = toJSONPointer(issue.path);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: `${path}/${escapePointerSegment(key)}`,
      message: 'unexpected property: the schema does not allow it',
    }));
  }
  if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) {
    return [{ path, message: `missing: expected ${issue.expected}` }];
  }
  return [{ path, message: issue.message.replace(/^Invalid input: /, '') }];
}

/** True when some object in the schema has a property that is not required. */
function hasOptionalProperties(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasOptionalProperties);
  if (!isPlainObject(node)) return false;
  if (isPlainObject(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    if (Object.keys(node.properties).some((key) => !required.has(key))) return true;
  }
  return Object.values(node).some(hasOptionalProperties);
}

// Keyed on the JSON Schema a restorer is compiled from: the conversion cache keeps one per Zod schema
// object (an external schema is the tool's own object), and neither is ever mutated, so a creator
// that rebuilds its tools every turn compiles each restorer once, and nothing here can go stale
// that the conversion itself could not. `null` records a schema with nothing to restore.
const nullRestorers = new WeakMap<JSONSchemaObject, NullRestorer | null>();

function nullRestorerOf(original: JSONSchemaObject): NullRestorer | undefined {
  let restorer = nullRestorers.get(original);
  if (restorer === undefined) {
    restorer = hasOptionalProperties(original) ? compileNullRestorer(original) : null;
    nullRestorers.set(original, restorer);
  }
  return restorer ?? undefined;
}

function createValidator(tool: WorkerAgentTool<unknown>): ToolValidator {
  const parameters = resolveToolParameters(tool);
  const { original } = parameters;
  const declaredProperties = Object.keys(isPlainObject(original.properties) ? original.properties : {});
  const parseOptions = { toolName: tool.name, declaredProperties };
  const restore = parameters.restoresOptionalNulls ? nullRestorerOf(original) : undefined;
  if (tool.jsonSchema !== undefined) {
    const validate = compileJSONSchema(tool.name, original);
    return {
      parseOptions,
      check(raw, noNulls) {
        // A projected external schema made optional properties nullable: their nulls mean "absent".
        const value = restore !== undefined && !noNulls ? restore(raw) : raw;
        if (validate(value)) return { ok: true, params: value };
        const { listed, unlisted } = mapCapped(
          validate.errors ?? [],
          (error) => [issueFromAjvError(error)],
          () => 1,
        );
        return { ok: false, issues: capIssues(listed, unlisted) };
      },
    };
  }
  const { schema } = tool;
  // A plain z.object strips keys it does not declare. Stripping what the model sent would run the
  // tool on something other than what was asked (an envelope the ladder rightly left alone becomes
  // its bare `name`), so an undeclared top-level key is refused unless the schema is open.
  const additional = original.additionalProperties;
  const declared = additional === undefined || additional === false ? new Set(declaredProperties) : undefined;
  return {
    parseOptions,
    check(value, noNulls) {
      const unknown: ToolArgumentIssue[] = [];
      if (declared !== undefined) {
        for (const key of Object.keys(value)) {
          if (declared.has(key)) continue;
          const takes =
            declaredProperties.length === 0 ? 'no arguments' : `only ${declaredProperties.join(', ')}`;
          unknown.push({
            path: `/${escapePointerSegment(key)}`,
            message: `unknown property: this tool takes ${takes}`,
          });
        }
      }
      // Strict mode made optional properties required-but-nullable: their nulls mean "absent".
      const result = schema.safeParse(restore !== undefined && !noNulls ? restore(value) : value);
      if (result.success && unknown.length === 0) return { ok: true, params: result.data };
      const { listed, unlisted } = result.success
        ? { listed: [], unlisted: 0 }
        : mapCapped(result.error.issues, fromZodIssue, zodIssueCount);
      const reported = new Set(listed.map((issue) => issue.path));
      return {
        ok: false,
        issues: capIssues([...listed, ...unknown.filter((issue) => !reported.has(issue.path))], unlisted),
      };
    },
  };
}

/**
 * Turns a tool call's raw argument string into the tool's parameters: the argument ladder
 * (`parseToolArguments`), then the tool's schema. A Zod tool sent in strict mode first gets the
 * nulls of its optional properties mapped back to absent (so Zod defaults apply); a tool with an
 * external `jsonSchema` is validated against that JSON Schema (draft-07, 2019-09 or 2020-12, by its
 * `$schema`) and receives the parsed object as its parameters. Schema work is cached per tool.
 *
 * Contract: the model's mistakes are returned, never thrown: `{ ok: false, error }` with a
 * `ToolArgumentsError` whose message lists each problem as a JSON-pointer path and what was
 * expected. Throws `ToolDefinitionError` (field `jsonSchema`) only when a tool's external JSON
 * Schema cannot be compiled: a configuration mistake, not the model's.
 *
 * @example
 * const result = validateToolArguments(readNote, call.arguments, { finishReason });
 * if (!result.ok) return { content: result.error.message, isError: true };
 * return readNote.execute(result.params, context);
 */
export function validateToolArguments<TParams>(
  tool: WorkerAgentTool<TParams>,
  raw: string,
  options?: ValidateToolArgumentsOptions,
): ValidateToolArgumentsResult<TParams> {
  let validator = validators.get(tool);
  if (validator === undefined) {
    validator = createValidator(tool as WorkerAgentTool<unknown>);
    validators.set(tool, validator);
  }
  const parsed = parseToolArguments(
    raw,
    options?.finishReason === undefined
      ? validator.parseOptions
      : { ...validator.parseOptions, finishReason: options.finishReason },
  );
  if (!parsed.ok) {
    return {
      ok: false,
      error: new ToolArgumentsError({
        toolName: tool.name,
        reason: parsed.reason,
        issues: [{ path: parsed.path ?? '', message: parsed.message }],
        raw,
      }),
    };
  }
  const checked = validator.check(parsed.value, parsed.repairs.length === 0 && !raw.includes('null'));
  if (!checked.ok) {
    return {
      ok: false,
      error: new ToolArgumentsError({
        toolName: tool.name,
        reason: 'invalid-arguments',
        issues: checked.issues,
        raw,
      }),
    };
  }
  return { ok: true, params: checked.params as TParams, repairs: parsed.repairs };
}
