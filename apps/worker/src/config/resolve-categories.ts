import path from 'node:path';
import type { WebSearchProfile } from '@switchyard/tools-web';
import { BUILT_IN_CATEGORIES, DEFAULT_CATEGORY_EXPORT, type WorkerCategoryPackage } from './category-package';
import type { ConfigEnvironment } from './config-environment';
import type { ConfigFile } from './config-schema';
import { refuseWholeFileSystem } from './refuse-whole-file-system';
import type { WorkerCategories, WorkerComputerConfig } from './worker-config';
import type { WorkerConfigIssue } from './worker-config-error';

type DeclaredCategories = NonNullable<ConfigFile['categories']>;

/** The built-in categories of a file that declares none: computer, web fetch and schedule. */
const DEFAULT_CATEGORIES: Pick<DeclaredCategories, (typeof BUILT_IN_CATEGORIES)[number]> = {
  computer: {},
  web: { fetch: {} },
  schedule: {},
};

/** What resolving a category reads, and where it reports a problem. */
interface CategoryContext {
  /** Where API keys are read. */
  env: ConfigEnvironment;
  /** Relative paths resolve against this folder. */
  baseDir: string;
  /** Every problem found, with its field. */
  issues: WorkerConfigIssue[];
}

/** `categories.computer` with its defaults and paths resolved; a sandbox path of `/` is a problem. */
function resolveComputer(
  computer: NonNullable<DeclaredCategories['computer']>,
  { baseDir, issues }: CategoryContext,
): WorkerComputerConfig {
  const sandbox = typeof computer.sandbox === 'string' ? { mode: computer.sandbox } : computer.sandbox;
  (sandbox?.hiddenPaths ?? []).forEach((entry, index) => {
    if (path.resolve(baseDir, entry) === path.parse(baseDir).root) {
      issues.push({
        field: `categories.computer.sandbox.hiddenPaths[${index}]`,
        message: 'cannot hide the whole file system',
      });
    }
  });
  refuseWholeFileSystem(sandbox?.readOnlyPaths, 'categories.computer.sandbox.readOnlyPaths', baseDir, issues);
  return {
    homeRoot: path.resolve(baseDir, computer.homeRoot ?? '.switchyard/homes'),
    env: computer.env ?? [],
    skills: computer.skills ?? true,
    skillLimits: computer.skillLimits ?? {},
    limits: computer.limits ?? {},
    sandbox: {
      mode: sandbox?.mode ?? 'auto',
      network: sandbox?.network ?? 'none',
      hiddenPaths: (sandbox?.hiddenPaths ?? []).map((entry) => path.resolve(baseDir, entry)),
      readOnlyPaths: (sandbox?.readOnlyPaths ?? []).map((entry) => path.resolve(baseDir, entry)),
    },
  };
}

/** The search profile with its API key read from the environment (a missing key is a problem). */
function resolveSearch(
  search: NonNullable<NonNullable<ConfigFile['categories']>['web']>['search'],
  env: ConfigEnvironment,
  issues: WorkerConfigIssue[],
): WebSearchProfile | undefined {
  if (search === undefined) return undefined;
  if (search.provider === 'searxng') return search;
  const { apiKeyEnv: configured, ...profile } = search;
  const variable = configured ?? (search.provider === 'brave' ? 'BRAVE_API_KEY' : 'TAVILY_API_KEY');
  const apiKey = env[variable];
  if (apiKey === undefined || apiKey === '') {
    issues.push({
      field: 'categories.web.search.apiKeyEnv',
      message: `the ${search.provider} API key is read from the environment variable ${variable}, which is not set`,
    });
    return undefined;
  }
  return { ...profile, apiKey } as WebSearchProfile;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** `categories.schedule` with its default time zone, which must be an IANA one. */
function resolveSchedule(
  schedule: NonNullable<DeclaredCategories['schedule']>,
  issues: WorkerConfigIssue[],
): { defaultTimeZone: string } {
  const zone = schedule.defaultTimeZone ?? 'UTC';
  if (!isTimeZone(zone)) {
    issues.push({
      field: 'categories.schedule.defaultTimeZone',
      message: `${JSON.stringify(zone)} is not an IANA time zone`,
    });
  }
  return { defaultTimeZone: zone };
}

/** `categories.mcp` with each stdio server's `cwd` resolved against the file's folder. */
function resolveMcp(
  mcp: NonNullable<DeclaredCategories['mcp']>,
  baseDir: string,
): NonNullable<WorkerCategories['mcp']> {
  const servers: NonNullable<WorkerCategories['mcp']>['servers'] = {};
  for (const [name, server] of Object.entries(mcp.servers)) {
    servers[name] =
      'command' in server && server.cwd !== undefined
        ? { ...server, cwd: path.resolve(baseDir, server.cwd) }
        : server;
  }
  return { servers };
}

// npm's rule for a package name (at most 214 characters, checked apart): lower-case, an optional scope.
const PACKAGE_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** The keys of `categories` that name packages, each checked and with its defaults, in the file's order. */
function resolvePackages(declared: DeclaredCategories, issues: WorkerConfigIssue[]): WorkerCategoryPackage[] {
  const builtIn: readonly string[] = BUILT_IN_CATEGORIES;
  const packages: WorkerCategoryPackage[] = [];
  for (const [name, entry] of Object.entries(declared)) {
    if (builtIn.includes(name) || entry === undefined) continue;
    if (name.length > 214 || !PACKAGE_NAME.test(name)) {
      issues.push({
        field: `categories.${name}`,
        message: `is neither a built-in category (${BUILT_IN_CATEGORIES.join(', ')}) nor a package name`,
      });
      continue;
    }
    const {
      options,
      export: exportName,
      services,
    } = entry as {
      options?: Record<string, unknown>;
      export?: string;
      services?: WorkerCategoryPackage['services'];
    };
    packages.push({
      name,
      options: options ?? {},
      exportName: exportName ?? DEFAULT_CATEGORY_EXPORT,
      services: [...new Set(services ?? [])],
    });
  }
  return packages;
}

/**
 * The categories a file declares (the defaults when it declares none), each with its defaults and
 * its paths resolved against `baseDir`; every problem is pushed to `context.issues`.
 */
export function resolveCategories(
  declared: DeclaredCategories | undefined,
  context: CategoryContext,
): WorkerCategories {
  const categories: WorkerCategories = {};
  const { computer, web, schedule, jobs, workflow, brain, mcp } = declared ?? DEFAULT_CATEGORIES;
  if (computer !== undefined) categories.computer = resolveComputer(computer, context);
  if (web !== undefined) {
    categories.web = {
      search: resolveSearch(web.search, context.env, context.issues),
      fetch: web.fetch ?? {},
    };
  }
  if (schedule !== undefined) categories.schedule = resolveSchedule(schedule, context.issues);
  if (jobs !== undefined) categories.jobs = {};
  if (workflow !== undefined) categories.workflow = {};
  if (brain !== undefined) categories.brain = { ...brain };
  if (mcp !== undefined) categories.mcp = resolveMcp(mcp, context.baseDir);
  const packages = declared === undefined ? [] : resolvePackages(declared, context.issues);
  if (packages.length > 0) categories.packages = packages;
  return categories;
}
