// The worker's configuration: import from here (`./config`) in the CLI and the daemon.

export { type AgentBudgets, DEFAULT_AGENT_BUDGETS } from './agent-budgets';
export {
  BUILT_IN_CATEGORIES,
  type CategoryPackageCreator,
  type CategoryPackageServiceName,
  type CategoryPackageServices,
  type CategoryPackageTurn,
  DEFAULT_CATEGORY_EXPORT,
  type WorkerCategoryPackage,
} from './category-package';
export {
  type CommandSandboxReport,
  checkCommandSandbox,
  commandSandbox,
  computerLimitsOf,
  sandboxReport,
} from './command-sandbox';
export type { ConfigEnvironment } from './config-environment';
export type { ConfigFile } from './config-schema';
export { loadCategoryPackages } from './load-category-packages';
export {
  CONFIG_FILE_NAME,
  DEFAULT_INSTRUCTIONS,
  type LoadConfigOptions,
  loadConfig,
  type ParseConfigOptions,
  parseConfig,
} from './load-config';
export { approvalPolicyOf, budgetsOf, resolveAgent, type TurnAgent } from './resolve-agent';
export { type ModelEndpoint, resolveModelEndpoint } from './resolve-model-endpoint';
export { SERVE_TOKEN_VARIABLE } from './resolve-serve';
export type {
  ApprovalDecision,
  ApprovalPolicy,
  WorkerAgentComputerConfig,
  WorkerCategories,
  WorkerComputerConfig,
  WorkerConfig,
  WorkerFetchConfig,
  WorkerLimits,
  WorkerModelConfig,
  WorkerSandboxConfig,
  WorkerServeConfig,
  WorkerWebConfig,
} from './worker-config';
export { WorkerConfigError, type WorkerConfigIssue } from './worker-config-error';
