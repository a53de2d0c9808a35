import { type AnyWorkerAgentTool, collectToolSchemas, TOOL_NAME_PATTERN } from '@switchyard/core';
import type { CategoryPackageServices, WorkerCategoryPackage } from './config/category-package';
import type { TurnAgent } from './config/resolve-agent';
import type { WorkerConfig } from './config/worker-config';
import { WorkerConfigError } from './config/worker-config-error';
import type { TextTurnSection, TextTurnServices } from './text-turn';

/** What the package sections of a turn are built from. */
export interface PackageSectionsContext {
  /** The configuration, its packages loaded (`loadCategoryPackages`). */
  config: WorkerConfig;
  /** The agent the turn runs for. */
  agent: TurnAgent;
  /** The worker's services: a package gets those it asked for. */
  services: TextTurnServices;
  /** The turn's signal (absent: one that never aborts, as at start-up). */
  signal?: AbortSignal;
}

const NEVER_ABORTED = new AbortController().signal;

function refusal(config: WorkerConfig, field: string, message: string, cause?: unknown): WorkerConfigError {
  return new WorkerConfigError({
    issues: [{ field, message }],
    ...(config.source === undefined ? {} : { source: config.source }),
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The services `entry` asked for, each of which the worker must have opened. */
function servicesFor(
  entry: WorkerCategoryPackage,
  services: TextTurnServices,
  config: WorkerConfig,
): Partial<CategoryPackageServices> {
  const given: Partial<Record<keyof CategoryPackageServices, unknown>> = {};
  for (const name of entry.services) {
    const service = services[name];
    if (service === undefined) {
      throw refusal(
        config,
        `categories.${entry.name}.services`,
        `asks for ${name}, which this command has not opened`,
      );
    }
    given[name] = service;
  }
  return given as Partial<CategoryPackageServices>;
}

/** What is wrong with a value a creator returned as a tool, or undefined when it keeps the tool contract. */
function toolProblem(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null)
    return 'is not a tool object (make tools with defineWorkerTool)';
  const candidate = tool as Record<string, unknown>;
  if (typeof candidate.name !== 'string' || !TOOL_NAME_PATTERN.test(candidate.name))
    return `has no valid name (${TOOL_NAME_PATTERN.source})`;
  if (typeof candidate.description !== 'string') return 'has no description';
  if (typeof candidate.execute !== 'function') return 'has no execute function';
  if (typeof candidate.describeActivity !== 'function') return 'has no describeActivity function';
  if (candidate.executionMode !== 'parallel' && candidate.executionMode !== 'sequential')
    return "has an executionMode other than 'parallel' or 'sequential'";
  if (typeof candidate.isReadOnly !== 'boolean' || typeof candidate.isDestructive !== 'boolean')
    return 'does not say whether it is read-only and destructive';
  if ((candidate.schema === undefined) === (candidate.jsonSchema === undefined))
    return 'needs exactly one of schema (Zod) and jsonSchema';
  return undefined;
}

/**
 * The tools `entry`'s creator returned, checked against the tool contract: an array (not a promise)
 * of tools as `defineWorkerTool` makes them whose schemas core can send.
 */
function checkedTools(
  entry: WorkerCategoryPackage,
  returned: unknown,
  config: WorkerConfig,
): AnyWorkerAgentTool[] {
  const field = `categories.${entry.name}`;
  if (!Array.isArray(returned)) {
    const what = returned instanceof Promise ? 'a promise' : typeof returned;
    throw refusal(
      config,
      field,
      `${entry.exportName} must return an array of tools, synchronously; it returned ${what}`,
    );
  }
  returned.forEach((tool, index) => {
    const problem = toolProblem(tool);
    if (problem !== undefined) {
      const name = typeof tool?.name === 'string' ? ` (${JSON.stringify(tool.name)})` : '';
      throw refusal(config, field, `${entry.exportName} returned a tool [${index}]${name} that ${problem}`);
    }
  });
  const tools = returned as AnyWorkerAgentTool[];
  try {
    collectToolSchemas(tools);
  } catch (error) {
    throw refusal(config, field, `its tools break the tool contract: ${(error as Error).message}`, error);
  }
  return tools;
}

/** A creator's refusal as the worker's: the option's field when the error names one, else the package. */
function creatorRefusal(
  entry: WorkerCategoryPackage,
  error: unknown,
  config: WorkerConfig,
): WorkerConfigError {
  const field = (error as { field?: unknown } | null)?.field;
  const message = error instanceof Error ? error.message : String(error);
  return typeof field === 'string' && field !== ''
    ? refusal(config, `categories.${entry.name}.options.${field}`, message, error)
    : refusal(
        config,
        `categories.${entry.name}`,
        `${entry.exportName} refused to create its tools: ${message}`,
        error,
      );
}

/**
 * The sections of the category packages installed by configuration, in the file's order: each
 * creator called with the turn (`CategoryPackageTurn`), its tools checked.
 *
 * Contract: throws `WorkerConfigError` naming the package (or its option) when a creator throws, returns
 * something else than an array of tools, or asks for a service that is not open; throws `TypeError`
 * when the packages were not loaded with `loadCategoryPackages`.
 */
export function buildPackageSections(context: PackageSectionsContext): TextTurnSection[] {
  const { config, agent, services } = context;
  return (config.categories.packages ?? []).map((entry) => {
    const create = entry.create;
    if (create === undefined) {
      throw new TypeError(`categories.${entry.name}: the package was not loaded (loadCategoryPackages)`);
    }
    const turn = {
      agent: agent.id,
      home: agent.home,
      options: entry.options,
      signal: context.signal ?? NEVER_ABORTED,
      services: servicesFor(entry, services, config),
    };
    let returned: unknown;
    try {
      returned = create(turn);
    } catch (error) {
      throw creatorRefusal(entry, error, config);
    }
    return { category: entry.name, tools: checkedTools(entry, returned, config) };
  });
}

/**
 * Refuses a turn's composition in which a package's tool has the same dispatch key as an earlier
 * category's (a built-in or another package), naming the package: the model could not tell them apart.
 */
export function checkPackageToolKeys(sections: readonly TextTurnSection[], config: WorkerConfig): void {
  const owner = new Map<string, string>();
  const packages = new Set((config.categories.packages ?? []).map((entry) => entry.name));
  for (const section of sections) {
    for (const tool of section.tools) {
      const key = tool.namespace === undefined ? tool.name : `${tool.namespace}.${tool.name}`;
      const earlier = owner.get(key);
      if (earlier !== undefined && packages.has(section.category)) {
        throw refusal(
          config,
          `categories.${section.category}`,
          `its tool ${key} has the name of a tool of ${earlier}`,
        );
      }
      owner.set(key, section.category);
    }
  }
}
