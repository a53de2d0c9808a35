/**
 * One measured tool call of the stall benchmark. A category of tools (computer, web, MCP, ...) gives
 * a list of these from a file of its own; `suites/tool-stall.ts` runs any list.
 */
export interface StallCase {
  /** The tool called (`list_files`, ...): rows are grouped by it. */
  tool: string;
  /** What is adversarial about this call, short (`*a*a*a*a*b vs 250-character names`). */
  name: string;
  /** Runs before each measured call, not measured (re-create a file the call rewrites, ...). */
  setup?(): Promise<void>;
  /** The call itself; resolves with the tool's result (summarised in the report). */
  run(): Promise<unknown>;
}

/** A category's cases and the corpus they run on. */
export interface StallCaseSet {
  /** The category, for the report (`computer`). */
  category: string;
  /** A sentence on the corpus the cases run on. */
  corpus: string;
  cases: StallCase[];
  /** Removes the corpus (temporary files, servers). */
  close(): Promise<void>;
}
