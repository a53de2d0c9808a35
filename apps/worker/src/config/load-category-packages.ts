import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolve as resolveImport } from 'import-meta-resolve';
import {
  BUILT_IN_CATEGORIES,
  type CategoryPackageCreator,
  type WorkerCategoryPackage,
} from './category-package';
import type { WorkerConfig } from './worker-config';
import { WorkerConfigError } from './worker-config-error';

function refusal(config: WorkerConfig, field: string, message: string, cause: unknown): WorkerConfigError {
  return new WorkerConfigError({
    issues: [{ field, message }],
    ...(config.source === undefined ? {} : { source: config.source }),
    cause,
  });
}

/** Imports one package's entry as Node would from a module in `config.baseDir`, and takes its creator. */
async function loadPackage(
  config: WorkerConfig,
  entry: WorkerCategoryPackage,
): Promise<CategoryPackageCreator> {
  const field = `categories.${entry.name}`;
  // Resolved from the configuration file's folder, not from the worker's own: an operator installs
  // the packages next to the file (`npm install @acme/tools-crm`), wherever the worker is installed.
  const parent = pathToFileURL(path.join(config.baseDir, 'switchyard.config.json')).href;
  let url: string;
  try {
    url = resolveImport(entry.name, parent);
  } catch (error) {
    throw refusal(
      config,
      field,
      `the package cannot be found from ${config.baseDir} (install it there, e.g. \`npm install ${entry.name}\`; ` +
        `the built-in categories are ${BUILT_IN_CATEGORIES.join(', ')}): ${(error as Error).message}`,
      error,
    );
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw refusal(config, field, `the package could not be loaded: ${(error as Error).message}`, error);
  }
  const create = module[entry.exportName];
  if (typeof create !== 'function') {
    throw refusal(
      config,
      `${field}.export`,
      `the package exports no function ${entry.exportName} (a category installed by configuration ` +
        'exports its creator under that name: see docs/writing-a-tool-category.md)',
      undefined,
    );
  }
  return create as CategoryPackageCreator;
}

/**
 * Imports the category packages the configuration names (`categories.<package>`), each resolved from
 * the configuration file's folder (else the working directory), and returns the configuration with
 * their creators. Every command that builds a text turn's tools (`tools`, `run`, `serve`) calls it
 * once, before its first turn; a configuration without packages is returned as it is.
 *
 * Contract: throws `WorkerConfigError` naming the package (`categories.@acme/tools-crm: the package
 * cannot be found from ...`) when a package cannot be found or imported, and `categories.<package>.export`
 * when it has no creator function under the configured name. Nothing is called here: the creators
 * run in `checkTextTurnComposition` and every turn.
 *
 * @example
 * const config = await loadCategoryPackages(await loadConfig());
 * checkTextTurnComposition({ config, agent });
 */
export async function loadCategoryPackages(config: WorkerConfig): Promise<WorkerConfig> {
  const packages = config.categories.packages;
  if (packages === undefined || packages.every((entry) => entry.create !== undefined)) return config;
  const loaded: WorkerCategoryPackage[] = [];
  for (const entry of packages) {
    loaded.push(entry.create === undefined ? { ...entry, create: await loadPackage(config, entry) } : entry);
  }
  return { ...config, categories: { ...config.categories, packages: loaded } };
}
