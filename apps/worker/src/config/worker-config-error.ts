import { SwitchyardError } from '@switchyard/core';

/** One problem of a configuration: where, and what is wrong. */
export interface WorkerConfigIssue {
  /** The field as a dotted path from the file's root, e.g. `categories.web.search.provider`. */
  field: string;
  /** What is wrong with it. */
  message: string;
}

/**
 * The worker's configuration is invalid: a wrong type, an unknown field, a missing required value,
 * an environment variable it names that is not set, or no model endpoint at all.
 *
 * Contract: thrown by `loadConfig`/`parseConfig` before anything starts. `field` is the first
 * problem's field; `issues` lists every problem; the message names each field
 * (`categories.web.search.provider: ...`).
 */
export class WorkerConfigError extends SwitchyardError {
  /** The first offending field. */
  readonly field: string;
  /** Every problem found, in document order. */
  readonly issues: readonly WorkerConfigIssue[];
  /** The configuration file, when the problem is in one. */
  readonly source: string | undefined;

  constructor(options: { issues: readonly WorkerConfigIssue[]; source?: string; cause?: unknown }) {
    const where = options.source === undefined ? 'configuration' : options.source;
    const lines = options.issues.map((issue) => `${issue.field}: ${issue.message}`);
    super(
      lines.length === 1 ? `Invalid ${where}: ${lines[0]}` : `Invalid ${where}:\n- ${lines.join('\n- ')}`,
      { cause: options.cause },
    );
    this.markAs('WorkerConfigError');
    this.issues = options.issues;
    this.field = options.issues[0]?.field ?? '';
    this.source = options.source;
  }

  static override isInstance(value: unknown): value is WorkerConfigError {
    return SwitchyardError.hasMark(value, 'WorkerConfigError');
  }
}
