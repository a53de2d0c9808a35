// Any export added here is public API: keep it named, documented and deliberate.

export { checkSandbox } from './command/check-sandbox';
export type { SandboxStatus } from './command/resolve-sandbox';
export type { RunCommandDetails } from './command/run-command-tool';
export type { LimitExceeded } from './command/sandbox-monitor';
export type {
  ComputerSandboxOptions,
  ComputerToolsContext,
  ComputerToolsLimits,
  SandboxMode,
  SandboxNetwork,
  SpawnFunction,
} from './computer-tools-context';
export { createComputerTools } from './create-computer-tools';
export { ComputerToolsConfigError } from './errors/computer-tools-config-error';
export type { EditFileDetails } from './files/edit-file-tool';
export type { ListFilesDetails } from './files/list-files-tool';
export { type FileBeforeWrite, readFileBeforeWrite } from './files/read-file-before-write';
export type { ReadFileDetails } from './files/read-file-tool';
export type { SearchFilesDetails } from './files/search-files-tool';
export type { WriteFileDetails } from './files/write-file-tool';
export { type LoadSkillsOptions, loadSkills } from './skills/load-skills';
export { type ProjectSkillsOptions, projectSkills } from './skills/project-skills';
export type { LoadedSkills, McpServerDefinition, Skill, SkillProblem } from './skills/skill';
export { DEFAULT_SKILL_LIMITS, type SkillLimits } from './skills/skill-limits';
export {
  MCPORTER_CONFIG_PATH,
  type McporterConfigResult,
  writeMcporterConfig,
} from './skills/write-mcporter-config';
