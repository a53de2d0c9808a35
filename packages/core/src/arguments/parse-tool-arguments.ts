import { isPlainObject } from '../shared/is-plain-object';
import { type ArgumentRepair, addRepair, type LadderRefusalReason } from './argument-ids';
import { LadderRefusal } from './ladder-refusal';
import { checkSize, NOT_STRICT, parseStrict, scanStructure } from './ladder-strict-json';
import { stripFences, stripWrappers } from './ladder-wrappers';
import { parseTolerantJSON } from './tolerant-json-parser';

export type { ArgumentRepair } from './argument-ids';

/** The outcome of `parseToolArguments`. */
export type ParseToolArgumentsResult =
  | {
      /** The arguments were read. */
      ok: true;
      /** The arguments object. */
      value: Record<string, unknown>;
      /** The repair steps applied, in order; empty for clean JSON. */
      repairs: ArgumentRepair[];
    }
  | {
      /** The arguments were refused. */
      ok: false;
      /** A stable kebab-case id of the refusal, e.g. `truncated`, `duplicate-key`. */
      reason: LadderRefusalReason;
      /** What is wrong and what to send instead, written for the model. */
      message: string;
      /** A JSON pointer to the one value refused (e.g. `/price` for `non-finite-number`), when there is one. */
      path?: string;
    };

/** What `parseToolArguments` may know about the call. */
export interface ParseToolArgumentsOptions {
  /** The called tool's name: an envelope `{ "name", "arguments" }` is unwrapped only when it names this tool. */
  toolName?: string;
  /** The model response's finish reason; `length`, `max_output_tokens` or `max_tokens` means it was cut off. */
  finishReason?: string;
  /** The property names the tool's schema declares; envelopes are unwrapped only when this is given. */
  declaredProperties?: readonly string[];
}

const TRUNCATING_FINISH_REASONS: ReadonlySet<string> = new Set(['length', 'max_output_tokens', 'max_tokens']);

interface LadderContext {
  readonly options: ParseToolArgumentsOptions;
  readonly truncatedByLimit: boolean;
}

interface LadderStage {
  /** Decode a JSON string holding an object (only once: not inside a decoded string). */
  readonly decode: boolean;
  /** Unwrap a call envelope (only once). */
  readonly envelope: boolean;
}

interface LadderSuccess {
  value: Record<string, unknown>;
  repairs: ArgumentRepair[];
}

function describeKind(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

function refuseNotAnObject(value: unknown): never {
  throw new LadderRefusal(
    'not-an-object',
    `The arguments are ${describeKind(value)}, not a JSON object. Send an object whose keys are the tool's parameters.`,
  );
}

function unwrapEnvelope(
  object: Record<string, unknown>,
  repairs: ArgumentRepair[],
  context: LadderContext,
): LadderSuccess {
  const { declaredProperties, toolName } = context.options;
  const argumentsKey = Object.hasOwn(object, 'arguments')
    ? 'arguments'
    : Object.hasOwn(object, 'parameters')
      ? 'parameters'
      : undefined;
  if (argumentsKey === undefined) return { value: object, repairs };
  const unchanged = { value: object, repairs };
  if (declaredProperties === undefined || declaredProperties.includes(argumentsKey)) return unchanged;
  const keyCount = Object.keys(object).length;
  if (keyCount === 2 && Object.hasOwn(object, 'name')) {
    const { name } = object;
    if (declaredProperties.includes('name') || typeof name !== 'string' || toolName === undefined) {
      return unchanged;
    }
    if (name !== toolName) {
      throw new LadderRefusal(
        'envelope-for-other-tool',
        `The arguments are a call envelope for the tool ${JSON.stringify(name)}, but this call is to ${JSON.stringify(toolName)}. Nothing was run. Call ${JSON.stringify(name)} directly, or send only the arguments of ${JSON.stringify(toolName)}.`,
      );
    }
  } else if (keyCount !== 1 || argumentsKey !== 'arguments') {
    return unchanged;
  }
  const inner = object[argumentsKey];
  if (isPlainObject(inner)) {
    addRepair(repairs, 'unwrap-envelope');
    return { value: inner, repairs };
  }
  if (typeof inner !== 'string') return unchanged;
  const decoded = runLadder(inner, context, { decode: false, envelope: false });
  addRepair(repairs, 'unwrap-envelope');
  for (const repair of decoded.repairs) addRepair(repairs, repair);
  return { value: decoded.value, repairs };
}

function finish(
  value: unknown,
  repairs: ArgumentRepair[],
  context: LadderContext,
  stage: LadderStage,
): LadderSuccess {
  if (typeof value === 'string') {
    if (!stage.decode || !value.trimStart().startsWith('{')) refuseNotAnObject(value);
    const decoded = runLadder(value, context, { decode: false, envelope: stage.envelope });
    const all: ArgumentRepair[] = ['decode-double-encoded'];
    for (const repair of [...repairs, ...decoded.repairs]) addRepair(all, repair);
    return { value: decoded.value, repairs: all };
  }
  if (!isPlainObject(value)) refuseNotAnObject(value);
  return stage.envelope ? unwrapEnvelope(value, repairs, context) : { value, repairs };
}

/**
 * The ladder, step by step: steps 1 and 3 are in `ladder-strict-json.ts`, 4 and 5 in
 * `ladder-wrappers.ts`, 6 to 9 in `tolerant-json-parser.ts`; 2, 10 and the envelope are here.
 */
function runLadder(raw: string, context: LadderContext, stage: LadderStage): LadderSuccess {
  // Step 1: caps before any parsing.
  checkSize(raw);
  const colons = scanStructure(raw);
  const startsAsObject = raw.charCodeAt(0) === 123;
  if (startsAsObject) {
    // Step 3 first for the common case: an object cannot be step 2's "nothing".
    const strict = parseStrict(raw, colons, context.truncatedByLimit);
    if (strict !== NOT_STRICT) return finish(strict, [], context, stage);
  }

  // Step 2: nothing means no arguments (the schema still enforces required fields).
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed === 'null' || trimmed === 'None') {
    if (trimmed === '' && context.truncatedByLimit) {
      throw new LadderRefusal(
        'truncated',
        'The arguments are empty and the output was cut off at the token limit. Nothing was run. Send the call again.',
      );
    }
    return { value: {}, repairs: ['no-arguments'] };
  }

  // Step 3: strict JSON, the fast path for clean input.
  const strict = startsAsObject ? NOT_STRICT : parseStrict(raw, colons, context.truncatedByLimit);
  if (strict !== NOT_STRICT) return finish(strict, [], context, stage);

  // Steps 4 and 5: a BOM, template wrappers and code fences around the JSON.
  const repairs: ArgumentRepair[] = [];
  let leading = 0;
  while (/[ \t\r\n]/.test(raw.charAt(leading))) leading += 1;
  if (raw.charCodeAt(leading) === 0xfeff) repairs.push('strip-bom');
  let text = stripWrappers(trimmed, repairs);
  text = stripFences(text, repairs, context.truncatedByLimit);
  text = stripWrappers(text, repairs);
  // Untouched input keeps its trailing whitespace: a number followed by a space is complete.
  if (repairs.length === 0 || (repairs.length === 1 && repairs[0] === 'strip-bom')) text = raw.trimStart();

  if (repairs.length > 0) {
    const unwrapped = parseStrict(text, scanStructure(text), context.truncatedByLimit);
    if (unwrapped !== NOT_STRICT) return finish(unwrapped, repairs, context, stage);
  }

  // Steps 6 to 9: the tolerant reader (it refuses duplicate keys itself).
  const tolerant = parseTolerantJSON(text, {
    allowRootClose: true,
    truncatedByLimit: context.truncatedByLimit,
  });
  for (const repair of tolerant.repairs) addRepair(repairs, repair);
  // Step 10 (an object root) and the envelope, in `finish`.
  return finish(tolerant.value, repairs, context, stage);
}

/**
 * Reads a model's tool-call argument string into an arguments object through a bounded repair
 * ladder: caps, no-arguments, strict JSON (and double-encoded JSON), BOM / fences / template
 * wrappers / call envelopes, a string-aware tolerant reader, trailing text, concatenated copies,
 * a truncated root and an object root. Anything it cannot read without guessing is refused with a
 * stable `reason` and a `message` the model can act on.
 *
 * Contract: a pure function; never throws; never turns broken input into `{}` or a shorter value
 * (the one exception is closing a root object that ends right after a complete member, reported
 * as the `close-truncated-root` repair, and never when `finishReason` says the output was cut).
 *
 * @example
 * parseToolArguments('```json\n{"path": "notes.md",}\n```');
 * // { ok: true, value: { path: 'notes.md' }, repairs: ['strip-code-fence', 'trailing-comma'] }
 * parseToolArguments('{"path": "notes.md", "content": "# To', { finishReason: 'length' });
 * // { ok: false, reason: 'truncated', message: 'The arguments were cut off at the output token limit ...' }
 */
export function parseToolArguments(
  raw: string,
  options: ParseToolArgumentsOptions = {},
): ParseToolArgumentsResult {
  const context: LadderContext = {
    options,
    truncatedByLimit:
      options.finishReason !== undefined && TRUNCATING_FINISH_REASONS.has(options.finishReason),
  };
  try {
    if (typeof raw !== 'string') {
      throw new LadderRefusal(
        'invalid-json',
        `The arguments must be a JSON string, got ${describeKind(raw)}.`,
      );
    }
    const { value, repairs } = runLadder(raw, context, { decode: true, envelope: true });
    return { ok: true, value, repairs };
  } catch (error) {
    if (error instanceof LadderRefusal) {
      return {
        ok: false,
        reason: error.reason,
        message: error.message,
        ...(error.path === undefined ? {} : { path: error.path }),
      };
    }
    throw error;
  }
}
