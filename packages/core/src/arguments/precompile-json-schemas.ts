import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { ValidateFunction } from 'ajv';
import { tooDeepPath } from '../shared/too-deep-path';
import type { JSONSchemaObject } from '../tool/worker-agent-tool';
import {
  EXTERNAL_SCHEMA_AJV_OPTIONS,
  hasCompiledJSONSchema,
  jsonSchemaDraft,
  registerCompiledJSONSchema,
} from './validate-tool-arguments';

const require = createRequire(import.meta.url);

// Runs in a worker thread: Ajv compiles a schema in time that grows faster than its size (an `anyOf`
// of 1,000 small branches, 50 KiB, took 1.4 s), so an untrusted schema is compiled here, with a
// deadline, and only the generated code comes back.
const COMPILER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const load = (path) => { const loaded = require(path); return loaded.default ?? loaded; };
const classes = { 'draft-07': load(workerData.ajv), '2019-09': load(workerData.ajv2019), '2020-12': load(workerData.ajv2020) };
const standaloneCode = load(workerData.standalone);
const instances = {};
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ schema, draft }) => {
  try {
    const ajv = (instances[draft] ??= new classes[draft]({ ...workerData.options, code: { source: true } }));
    const validate = ajv.compile(schema);
    const source = standaloneCode(ajv, validate);
    ajv.removeSchema(schema);
    // How deep its blocks nest (braces in strings count too: a bound from above).
    let depth = 0;
    let nesting = 0;
    for (let index = 0; index < source.length; index += 1) {
      const code = source.charCodeAt(index);
      if (code === 123) nesting = Math.max(nesting, ++depth);
      else if (code === 125) depth -= 1;
    }
    parentPort.postMessage({ source, nesting });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  }
});
`;

/** The generated code may load only Ajv's runtime helpers (`equal`, `ucs2length`, ...). */
function runtimeRequire(id: string): unknown {
  if (!/^ajv\/dist\/runtime\/[a-z0-9_]+$/.test(id)) throw new Error(`a validator may not load ${id}`);
  return require(id);
}

/** Why a schema was not compiled. */
export type PrecompileRefusal = 'invalid' | 'too-slow' | 'too-large';

/** The outcome for one schema of `precompileJSONSchemas`. */
export type PrecompileOutcome =
  | { ok: true }
  | {
      ok: false;
      /** `invalid`: Ajv cannot compile it; `too-slow`: past the time limit; `too-large`: past a code limit. */
      refusal: PrecompileRefusal;
      /** Why, in words, e.g. `compiling it for validation took more than 2000 ms`. */
      reason: string;
    };

/** What `precompileJSONSchemas` takes. */
export interface PrecompileJSONSchemasOptions {
  /** The most one schema's compilation may take, in ms: past it the thread is stopped. Default 2000. */
  schemaTimeoutMs?: number;
  /**
   * The most bytes of validator code one schema may compile to: the main thread still parses the
   * code, and V8 compiles it at the first validation. Default 1 MiB (about 100 ms of both).
   */
  maxValidatorCodeBytes?: number;
  /**
   * The deepest the validator's blocks may nest: V8's work on code grows faster than its size with
   * its nesting (an `anyOf` of 1,000 branches nests 1,000 deep: 750 KiB of code took 440 ms to load
   * and first run). Default 256.
   */
  maxValidatorNesting?: number;
  /** Stops the work: the schemas not yet compiled get the signal's reason. */
  signal?: AbortSignal;
}

const DEFAULT_SCHEMA_TIMEOUT_MS = 2000;
const DEFAULT_MAX_VALIDATOR_CODE_BYTES = 1024 * 1024;
const DEFAULT_MAX_VALIDATOR_NESTING = 256;
/**
 * The deepest a schema's JSON may nest (objects and arrays): a schema 2,000 levels deep could not
 * even be sent to the compiler's thread (its structured clone overflows the stack). A schema nested
 * 64 properties deep is 128 levels.
 */
const MAX_SCHEMA_DEPTH = 128;

/**
 * Compiles external JSON Schemas (an MCP server's `inputSchema`s) for validation in a worker thread,
 * one at a time, each within `schemaTimeoutMs`: Ajv's compilation takes time that grows faster than
 * a schema's size, and a server chooses its schemas. The generated code is loaded on the main thread
 * (parsing is linear in its size, which `maxValidatorCodeBytes` bounds) and used by every later
 * `defineWorkerTool` of the same schema object, which then compiles nothing.
 *
 * Contract: resolves with one outcome per schema, in order; never rejects for a schema's sake (one
 * nested deeper than 128 levels is `too-large` before any work). A schema already compiled is `ok`
 * at once. A refused schema must not be given to `defineWorkerTool`,
 * which would compile it on the main thread. The thread is stopped when the work ends.
 *
 * @example
 * const outcomes = await precompileJSONSchemas(tools.map((tool) => tool.inputSchema));
 * const usable = tools.filter((_, index) => outcomes[index]?.ok);
 */
export async function precompileJSONSchemas(
  schemas: readonly JSONSchemaObject[],
  options: PrecompileJSONSchemasOptions = {},
): Promise<PrecompileOutcome[]> {
  const timeoutMs = options.schemaTimeoutMs ?? DEFAULT_SCHEMA_TIMEOUT_MS;
  const maxCodeBytes = options.maxValidatorCodeBytes ?? DEFAULT_MAX_VALIDATOR_CODE_BYTES;
  const maxNesting = options.maxValidatorNesting ?? DEFAULT_MAX_VALIDATOR_NESTING;
  const outcomes: PrecompileOutcome[] = [];
  let thread: Worker | undefined;
  try {
    for (const schema of schemas) {
      if (hasCompiledJSONSchema(schema)) {
        outcomes.push({ ok: true });
        continue;
      }
      if (options.signal?.aborted) {
        outcomes.push({ ok: false, refusal: 'too-slow', reason: String(options.signal.reason) });
        continue;
      }
      const deep = tooDeepPath(schema, '#', MAX_SCHEMA_DEPTH);
      if (deep !== undefined) {
        const shown = deep.length > 120 ? `${deep.slice(0, 120)}...` : deep;
        outcomes.push({
          ok: false,
          refusal: 'too-large',
          reason: `it nests deeper than ${MAX_SCHEMA_DEPTH} levels (at ${shown}), more than a schema may`,
        });
        continue;
      }
      try {
        thread ??= await startCompiler();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        outcomes.push({ ok: false, refusal: 'too-slow', reason: `its compiler could not start: ${message}` });
        continue;
      }
      const answer = await compileIn(thread, schema, timeoutMs, options.signal);
      if (answer.kind === 'stopped') {
        // The thread is stopped mid-compile; the next schema gets a new one.
        void thread.terminate();
        thread = undefined;
        outcomes.push({ ok: false, refusal: 'too-slow', reason: answer.reason });
      } else if (answer.kind === 'error') {
        outcomes.push({
          ok: false,
          refusal: 'invalid',
          reason: `cannot be compiled for validation: ${answer.message}`,
        });
      } else if (answer.source.length > maxCodeBytes) {
        outcomes.push({
          ok: false,
          refusal: 'too-large',
          reason: `its validator would be ${answer.source.length} bytes of code, over the ${maxCodeBytes} a schema may compile to`,
        });
      } else if (answer.nesting > maxNesting) {
        outcomes.push({
          ok: false,
          refusal: 'too-large',
          reason: `its validator's code would nest ${answer.nesting} blocks deep, over the ${maxNesting} a schema may compile to`,
        });
      } else {
        registerCompiledJSONSchema(schema, loadValidator(answer.source));
        outcomes.push({ ok: true });
      }
    }
  } finally {
    void thread?.terminate();
  }
  return outcomes;
}

// A schema's time limit starts once the thread has loaded Ajv (tens of ms on a loaded machine).
async function startCompiler(): Promise<Worker> {
  const thread = new Worker(COMPILER_SOURCE, {
    eval: true,
    // A schema that makes the compiler allocate without end stops the thread, not the worker.
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    workerData: {
      ajv: require.resolve('ajv'),
      ajv2019: require.resolve('ajv/dist/2019.js'),
      ajv2020: require.resolve('ajv/dist/2020.js'),
      standalone: require.resolve('ajv/dist/standalone/index.js'),
      options: EXTERNAL_SCHEMA_AJV_OPTIONS,
    },
  });
  thread.unref();
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      thread.off('message', onMessage);
      thread.off('error', onError);
      thread.off('exit', onExit);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onMessage = () => settle();
    const onError = (error: Error) => settle(error);
    const onExit = (code: number) => settle(new Error(`it exited with code ${code}`));
    thread.on('message', onMessage);
    thread.on('error', onError);
    thread.on('exit', onExit);
  });
  return thread;
}

type CompilerAnswer =
  | { kind: 'compiled'; source: string; nesting: number }
  | { kind: 'error'; message: string }
  | { kind: 'stopped'; reason: string };

// The time limit is a timer this compilation holds until it answers.
function compileIn(
  thread: Worker,
  schema: JSONSchemaObject,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<CompilerAnswer> {
  return new Promise((resolve) => {
    const finish = (answer: CompilerAnswer) => {
      clearTimeout(timer);
      thread.off('message', onMessage);
      thread.off('error', onError);
      thread.off('exit', onExit);
      signal?.removeEventListener('abort', onAbort);
      resolve(answer);
    };
    const onMessage = (message: { source?: string; nesting?: number; error?: string }) =>
      finish(
        typeof message.source === 'string'
          ? { kind: 'compiled', source: message.source, nesting: message.nesting ?? 0 }
          : { kind: 'error', message: message.error ?? 'unknown error' },
      );
    const onError = (error: Error) =>
      finish({ kind: 'stopped', reason: `its compiler failed: ${error.message}` });
    const onExit = (code: number) =>
      finish({ kind: 'stopped', reason: `its compiler exited with code ${code}` });
    const onAbort = () => finish({ kind: 'stopped', reason: String(signal?.reason) });
    const timer = setTimeout(
      () => finish({ kind: 'stopped', reason: `compiling it for validation took more than ${timeoutMs} ms` }),
      timeoutMs,
    );
    thread.on('message', onMessage);
    thread.on('error', onError);
    thread.on('exit', onExit);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      thread.postMessage({ schema, draft: jsonSchemaDraft(schema) });
    } catch (error) {
      // A schema the thread cannot be sent (a structured clone past its depth) is refused, not thrown.
      finish({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  });
}

function loadValidator(source: string): ValidateFunction {
  const module: { exports: unknown } = { exports: {} };
  // Ajv's own compile evaluates the same generated code with `new Function`; this is that step,
  // moved after the compilation that could not stay on the main thread.
  new Function('require', 'module', 'exports', source)(runtimeRequire, module, module.exports);
  return module.exports as ValidateFunction;
}
