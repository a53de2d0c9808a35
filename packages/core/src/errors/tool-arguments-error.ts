import type { ArgumentRefusalReason } from '../arguments/argument-ids';
import { SwitchyardError } from './switchyard-error';

/** One problem with a tool call's arguments. */
export interface ToolArgumentIssue {
  /** Where: a JSON pointer into the arguments (`/items/0/name`); `''` is the arguments as a whole. */
  path: string;
  /** What was expected there (or what is wrong with the input as a whole). */
  message: string;
}

// The raw arguments are never echoed: the model's call already holds them, and an echo would copy
// up to its whole text into the transcript and the turn's record once more. The issues above say
// where (a JSON pointer or a character position) and what kind of thing is wrong.
function describeReceived(raw: string): string {
  if (raw.length === 0) return 'Received: nothing (an empty string).';
  return `Received: ${raw.length} ${raw.length === 1 ? 'character' : 'characters'} (not repeated here: they are the arguments of your call).`;
}

/**
 * A tool call's arguments could not be used: the argument ladder refused them, or they do not
 * match the tool's schema. The message is written for the model: it names the tool, lists each
 * problem as a JSON-pointer path (or a character position) and what was expected there, and
 * gives the raw input's length.
 *
 * Contract: returned (never thrown) by `validateToolArguments`; the agent loop turns it into an
 * `isError` tool result so the model can correct the call. The turn goes on. The message never
 * echoes the raw input, and the ladder's refusals describe what they found by kind, length and
 * position (a JSON pointer's keys and JSON's own punctuation are the only text of the input in it).
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
    super([heading, ...lines, describeReceived(raw)].join('\n'), { cause: options.cause });
    this.markAs('ToolArgumentsError');
    this.toolName = options.toolName;
    this.reason = options.reason;
    this.issues = options.issues;
  }

  static override isInstance(value: unknown): value is ToolArgumentsError {
    return SwitchyardError.hasMark(value, 'ToolArgumentsError');
  }
}
