// Stand-in for the real repair ladder and validation (issue 3), written to its contract so the loop
// can be built and tested: JSON.parse, optional-null restoration for strict schemas, then Zod.
import { ToolArgumentsError } from '../errors/tool-arguments-error';
import { restoreOptionalNulls } from '../schema/strict-json-schema';
import { resolveToolParameters } from '../schema/tool-parameters';
import type { WorkerAgentTool } from '../tool/worker-agent-tool';

/** A note describing one repair the ladder made to the model's argument string. */
export type ArgumentRepair = string;

/** What `validateToolArguments` returns. */
export type ValidateToolArgumentsResult<TParams> =
  | {
      /** The arguments validated. */
      ok: true;
      /** The validated parameters `execute` receives. */
      params: TParams;
      /** Repairs made on the way, in order (empty when the string parsed as sent). */
      repairs: ArgumentRepair[];
    }
  | {
      /** The arguments could not be parsed or did not validate. */
      ok: false;
      /** Its `message` is what the model reads as the call's output. */
      error: ToolArgumentsError;
    };

/**
 * Parses and validates a function call's raw argument string against the tool's schema.
 *
 * Contract: never throws for bad input; returns `{ ok: false, error }` with a message the model
 * can act on. `finishReason` (`incomplete_details.reason`) tells it the string may be truncated.
 */
export function validateToolArguments<TParams>(
  tool: WorkerAgentTool<TParams>,
  raw: string,
  options: { finishReason?: string } = {},
): ValidateToolArgumentsResult<TParams> {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    const truncated =
      options.finishReason === 'max_output_tokens' ? ' (the response hit max_output_tokens)' : '';
    return {
      ok: false,
      error: new ToolArgumentsError({
        toolName: tool.name,
        message: `Invalid arguments for tool '${tool.name}': not valid JSON${truncated}: ${(error as Error).message}`,
        cause: error,
      }),
    };
  }
  const parameters = resolveToolParameters(tool);
  if (parameters.restoresOptionalNulls) value = restoreOptionalNulls(value, parameters.original);
  const parsed = tool.schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
      .join('; ');
    return {
      ok: false,
      error: new ToolArgumentsError({
        toolName: tool.name,
        message: `Invalid arguments for tool '${tool.name}': ${issues}`,
        cause: parsed.error,
      }),
    };
  }
  return { ok: true, params: parsed.data, repairs: [] };
}
