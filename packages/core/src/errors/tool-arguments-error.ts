import type { ArgumentRefusalReason } from '../arguments/argument-ids';
import { SwitchyardError } from './switchyard-error';

/** How much of the raw argument string a message echoes back to the model. */
const RAW_EXCERPT_LENGTH = 200;

/** One problem with a tool call's arguments. */
export interface ToolArgumentIssue {
  /** Where: a JSON pointer into the arguments (`/items/0/name`); `''` is the arguments as a whole. */
  path: string;
  /** What was expected there (or what is wrong with the input as a whole). */
  message: string;
}

function excerpt(raw: string): string {
  if (raw.length === 0) return 'Received: nothing (an empty string).';
  let end = Math.min(raw.length, RAW_EXCERPT_LENGTH);
  const last = raw.charCodeAt(end - 1);
  // Never split a surrogate pair.
  if (end < raw.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  const shown = JSON.stringify(raw.slice(0, end));
  return end < raw.length
    ? `Received (the first ${end} of ${raw.length} characters): ${shown}`
    : `Received: ${shown}`;
}

/**
 * A tool call's arguments could not be used: the argument ladder refused them, or they do not
 * match the tool's schema. The message is written for the model: it names the tool, lists each
 * problem as a JSON-pointer path and what was expected there, and echoes at most 200 characters
 * of the raw input.
 *
 * Contract: returned (never thrown) by `validateToolArguments`; the agent loop turns it into an
 * `isError` tool result so the model can correct the call. The turn goes on.
 */
export class ToolArgumentsError extends SwitchyardError {
  /** The called tool's name. */
  readonly toolName: string;
  /** A stable kebab-case id: the ladder's refusal reason, or `invalid-arguments` for schema failures. */
  readonly reason: ArgumentRefusalReason;
  /** Each problem, with a JSON-pointer path and what was expected. */
  readonly issues: ToolArgumentIssue[];

  constructor(options: {
    toolName: string;
    reason: ArgumentRefusalReason;
    issues: ToolArgumentIssue[];
    raw: string;
    cause?: unknown;
  }) {
    const lines = options.issues.map(
      (issue) => `- ${issue.path === '' ? '(arguments)' : issue.path}: ${issue.message}`,
    );
    const heading =
      options.reason === 'invalid-arguments'
        ? `Invalid arguments for tool '${options.toolName}' (nothing was run):`
        : `Could not read the arguments for tool '${options.toolName}' (${options.reason}; nothing was run):`;
    const raw = typeof options.raw === 'string' ? options.raw : String(options.raw);
    super([heading, ...lines, excerpt(raw)].join('\n'), { cause: options.cause });
    this.markAs('ToolArgumentsError');
    this.toolName = options.toolName;
    this.reason = options.reason;
    this.issues = options.issues;
  }

  static override isInstance(value: unknown): value is ToolArgumentsError {
    return SwitchyardError.hasMark(value, 'ToolArgumentsError');
  }
}
