import type { AnyWorkerAgentTool } from '@switchyard/core';
import type { BrainService } from '@switchyard/tools-brain';
import type { ScheduleService } from '@switchyard/tools-schedule';
import type { BackgroundJobService, WorkflowService } from '@switchyard/tools-workflow';

/** The export a category package's creator has unless `categories.<package>.export` names another. */
export const DEFAULT_CATEGORY_EXPORT = 'createSwitchyardTools';

/** The built-in categories' keys in `categories`: every other key names a package. */
export const BUILT_IN_CATEGORIES = [
  'computer',
  'web',
  'schedule',
  'jobs',
  'workflow',
  'brain',
  'mcp',
] as const;

/** A worker service a category package may ask for (`categories.<package>.services`). */
export type CategoryPackageServiceName = 'schedules' | 'workflows' | 'backgroundJobs' | 'brain';

/** The worker services a category package can be given, by name (the same the built-in categories use). */
export interface CategoryPackageServices {
  /** The control plane's schedules (`createSchedule`, `listSchedules`, `cancelSchedule`). */
  schedules: ScheduleService;
  /** The control plane's workflows. */
  workflows: WorkflowService;
  /** The control plane's background jobs. */
  backgroundJobs: BackgroundJobService;
  /** The control plane's Brain. */
  brain: BrainService;
}

/**
 * What a category package's creator receives on every text turn. The creator contract:
 *
 * - the package's entry (its `exports["."]`, imported as ESM) exports a function under
 *   `createSwitchyardTools` (or the name `categories.<package>.export` gives);
 * - it is called once per text turn with this object and returns the turn's tools, an array of tools
 *   made with `defineWorkerTool`, synchronously (no I/O: it may run on every turn);
 * - it throws for options it refuses, ideally an error with a `field` property naming the option
 *   (`{ field: 'prefix' }`): the worker refuses to start, naming `categories.<package>.options.<field>`.
 *
 * Contract: the worker calls the creator at start-up for each served agent (with services that are
 * never called, and a signal that never aborts), so a refusal, a throw or a tool that breaks the
 * tool contract stops the start, naming the package; then once per text turn, in the configured order,
 * after the built-in categories.
 */
export interface CategoryPackageTurn {
  /** The agent the turn runs for (`main`, `ada`, ...). */
  agent: string;
  /** The agent's home: an absolute folder that exists. */
  home: string;
  /** `categories.<package>.options` as the file gives them (`{}` when left out): the creator checks them. */
  options: Readonly<Record<string, unknown>>;
  /**
   * Aborts when the turn is cancelled (Ctrl-C in `run`, shutdown past the grace period in `serve`);
   * at start-up a signal that never aborts. Each call still gets its own in `execute`'s context.
   */
  signal: AbortSignal;
  /** The services the package asked for in `categories.<package>.services`, and only those. */
  services: Partial<CategoryPackageServices>;
}

/** A category package's creator (see `CategoryPackageTurn` for the contract). */
export type CategoryPackageCreator = (turn: CategoryPackageTurn) => readonly AnyWorkerAgentTool[];

/** A category package installed by configuration (`categories.<package>`), resolved. */
export interface WorkerCategoryPackage {
  /** The package name, as the key in `categories` (`@acme/tools-crm`). */
  name: string;
  /** Its `options` (`{}` when left out). */
  options: Readonly<Record<string, unknown>>;
  /** The creator's export name (default `createSwitchyardTools`). */
  exportName: string;
  /** The services it asked for, in the file's order. */
  services: readonly CategoryPackageServiceName[];
  /**
   * The creator, once `loadCategoryPackages` has imported the package (resolved from the
   * configuration file's folder); absent before.
   */
  create?: CategoryPackageCreator;
}
