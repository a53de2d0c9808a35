import type { ResponseOutputItem, ResponseUsage } from 'openai/resources/responses/responses';
import { ModelRequestError } from '../errors/model-request-error';
import { ZERO_USAGE } from '../events/add-usage';
import type { AgentUsage } from '../events/agent-event';
import { tooDeepPath } from '../shared/too-deep-path';

/**
 * The deepest a response's output may nest (an item is level 1, its fields level 2, ...). The
 * Responses API's own items nest about 6 levels (a message's annotation) and a Tool Search output's
 * JSON Schemas a few dozen; a server's output nested thousands of levels deep would overflow the
 * stack of whatever copies, stores or replays it (a thread's structured clone, `JSON.stringify`),
 * outside any `try` that could name the cause.
 */
export const MAX_RESPONSE_DEPTH = 64;

/** The most bytes of one response's body read by default (`maxResponseBytes`): 32 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

function malformed(detail: string): ModelRequestError {
  return new ModelRequestError({ message: `Model response malformed: ${detail}` });
}

/**
 * Checks what a response hands the loop before anything copies or replays it: `output` an array of
 * objects, each with a string `type`, nested at most `MAX_RESPONSE_DEPTH` levels.
 *
 * Contract: throws `ModelRequestError` ("Model response malformed: ...", naming the first value
 * that breaks a rule) and otherwise returns nothing; never mutates `output`.
 */
export function checkResponseOutput(output: unknown): asserts output is ResponseOutputItem[] {
  if (!Array.isArray(output)) throw malformed(`output is ${describe(output)}, not an array`);
  for (const [index, item] of output.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw malformed(`output[${index}] is ${describe(item)}, not an object`);
    }
    if (typeof (item as { type?: unknown }).type !== 'string') {
      throw malformed(`output[${index}] has no string type`);
    }
  }
  const deep = tooDeepPath(output, 'output', MAX_RESPONSE_DEPTH);
  if (deep !== undefined) {
    const shown = deep.length > 120 ? `${deep.slice(0, 120)}...` : deep;
    throw malformed(`${shown} nests deeper than ${MAX_RESPONSE_DEPTH} levels`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'total_tokens'] as const;

function tokens(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    const shown = typeof value === 'number' ? String(value) : describe(value);
    throw malformed(`usage.${field} is ${shown}, not a whole number of tokens`);
  }
  return value;
}

/**
 * The response's usage as the loop counts it; absent fields count 0 (`total` defaults to input plus
 * output).
 *
 * Contract: throws `ModelRequestError` naming the field for a count that is not a whole number of
 * at least 0 (a budget cannot add it).
 */
export function toUsage(usage: ResponseUsage | null | undefined): AgentUsage {
  if (usage === undefined || usage === null) return { ...ZERO_USAGE };
  if (typeof usage !== 'object') throw malformed(`usage is ${describe(usage)}, not an object`);
  for (const field of USAGE_FIELDS) tokens(usage[field], field);
  const inputTokens = usage.input_tokens ?? 0;
  const outputTokens = usage.output_tokens ?? 0;
  return {
    inputTokens,
    cachedInputTokens:
      tokens(usage.input_tokens_details?.cached_tokens, 'input_tokens_details.cached_tokens') ?? 0,
    outputTokens,
    reasoningTokens:
      tokens(usage.output_tokens_details?.reasoning_tokens, 'output_tokens_details.reasoning_tokens') ?? 0,
    totalTokens: usage.total_tokens ?? inputTokens + outputTokens,
  };
}
