import { isPlainObject } from '../shared/is-plain-object';
import { closingQuoteOf } from '../shared/json-text-depth';
import { type ArgumentRepair, addRepair, type LadderRefusalReason } from './argument-ids';
import {
  MAX_TOOL_ARGUMENT_BYTES,
  MAX_TOOL_ARGUMENT_DEPTH,
  MAX_TOOL_ARGUMENT_VALUES,
} from './argument-limits';
import { LadderRefusal } from './ladder-refusal';
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

function utf8Length(text: string): number {
  if (typeof Buffer !== 'undefined') return Buffer.byteLength(text, 'utf8');
  return new TextEncoder().encode(text).length;
}

/** Step 1: the size cap, before any parsing. */
function checkSize(raw: string): void {
  // A UTF-16 code unit is at least one UTF-8 byte and at most three: count only when it matters.
  if (raw.length * 3 <= MAX_TOOL_ARGUMENT_BYTES) return;
  const bytes = raw.length > MAX_TOOL_ARGUMENT_BYTES ? raw.length : utf8Length(raw);
  if (bytes > MAX_TOOL_ARGUMENT_BYTES) {
    throw new LadderRefusal(
      'too-large',
      `The arguments are larger than ${MAX_TOOL_ARGUMENT_BYTES} bytes (1 MB), so they were not read and nothing was run. Send smaller arguments, e.g. split large content over several calls.`,
    );
  }
}

/**
 * One pass over the text before any parsing: the nesting depth and the values (commas outside
 * double-quoted strings), each refused past its cap, and the number of `:` outside strings, which
 * for strict JSON is the number of members.
 * Returns -1 instead when the text cannot be strict JSON (open brackets or an open string at the
 * end; outside strings a quote other than `"`, a comment, a backslash, a capital letter, anything
 * non-ASCII), so `JSON.parse` and the cost of its exception are skipped. Strings are skipped with `indexOf`: long values cost little.
 */
function scanStructure(text: string): number {
  let depth = 0;
  let colons = 0;
  let commas = 0;
  let strict = true;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 34) {
      const close = closingQuoteOf(text, index);
      if (close === -1) {
        // An unterminated string: JSON.parse would fail.
        strict = false;
        break;
      }
      index = close + 1;
      continue;
    }
    if (code === 123 || code === 91) {
      depth += 1;
      if (depth > MAX_TOOL_ARGUMENT_DEPTH) {
        throw new LadderRefusal(
          'too-deep',
          `The arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels, so they were not read. Send a flatter object.`,
        );
      }
    } else if (code === 125 || code === 93) {
      if (depth > 0) depth -= 1;
    } else if (code === 58) {
      colons += 1;
    } else if (code === 44) {
      commas += 1;
      if (commas >= MAX_TOOL_ARGUMENT_VALUES) {
        throw new LadderRefusal(
          'too-large',
          `The arguments hold more than ${MAX_TOOL_ARGUMENT_VALUES} values, so they were not read and nothing was run. Send fewer values, e.g. split the work over several calls.`,
        );
      }
    } else if (
      code === 39 ||
      code === 47 ||
      code === 92 ||
      code === 96 ||
      code === 60 ||
      code >= 128 ||
      (code >= 65 && code <= 90 && code !== 69)
    ) {
      strict = false;
    }
    index += 1;
  }
  // Unbalanced brackets (a cut-off object, say) rule strict JSON out as well.
  return strict && depth === 0 ? colons : -1;
}

/** What `countMembers` returns for a value holding a number `JSON.parse` read as ±Infinity. */
const NON_FINITE = -1;

/**
 * Members in all objects of a parsed value (depth is bounded by the scan), or `NON_FINITE` when
 * any number in it is not finite (`1e999` parses to Infinity).
 */
function countMembers(value: object): number {
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const members = membersWithin(item);
      if (members === NON_FINITE) return NON_FINITE;
      count += members;
    }
    return count;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const members = membersWithin(record[key]);
    if (members === NON_FINITE) return NON_FINITE;
    count += 1 + members;
  }
  return count;
}

/** `countMembers` of one array item or member value: 0 for a finite scalar, `NON_FINITE` for ±Infinity. */
function membersWithin(item: unknown): number {
  if (typeof item === 'object' && item !== null) return countMembers(item);
  return typeof item === 'number' && !Number.isFinite(item) ? NON_FINITE : 0;
}

const NOT_STRICT: unique symbol = Symbol('not strict JSON');

/**
 * Step 3: strict `JSON.parse`, refusing the duplicate keys it would silently collapse and the numbers
 * it reads as ±Infinity (the tolerant reader names where). `colons` is `scanStructure`'s count.
 */
function parseStrict(text: string, colons: number, truncatedByLimit: boolean): unknown {
  if (colons < 0) return NOT_STRICT;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NOT_STRICT;
  }
  if (typeof value === 'object' && value !== null) {
    const members = countMembers(value);
    if (members === NON_FINITE) {
      // The tolerant reader knows where the number is and refuses it by its JSON pointer.
      parseTolerantJSON(text, { allowRootClose: false, truncatedByLimit });
      throw new LadderRefusal(
        'non-finite-number',
        'A number is not finite (it overflows). Send a smaller number.',
      );
    }
    if (members !== colons) {
      // Fewer members than `:` means JSON.parse dropped a duplicate: the tolerant reader names it.
      parseTolerantJSON(text, { allowRootClose: false, truncatedByLimit });
      throw new LadderRefusal(
        'duplicate-key',
        'A key appears more than once in an object. Send each key once.',
      );
    }
  }
  return value;
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

// The model's envelope names a tool: shown when it looks like a tool name, so the message never
// carries free text of the model's back to it.
const TOOL_NAME_LIKE = /^[a-zA-Z0-9_.-]{1,64}$/;

function namedTool(name: string): string {
  return TOOL_NAME_LIKE.test(name) ? `the tool ${JSON.stringify(name)}` : 'another tool';
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
        `The arguments are a call envelope for ${namedTool(name)}, but this call is to ${JSON.stringify(toolName)}. Nothing was run. Call that tool directly, or send only the arguments of ${JSON.stringify(toolName)}.`,
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
 * The ladder, step by step. The caps (1), nothing (2), strict JSON (3, the fast path clean input
 * takes alone), the root (10) and the envelope are here; the repairs are in their own files: fences
 * and wrappers (4 and 5) in `ladder-wrappers.ts`, the tolerant reader (6 to 9) in
 * `tolerant-json-parser.ts`.
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
