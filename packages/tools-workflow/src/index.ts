// Any export added here is public API: keep it named, documented and deliberate.

export { type BackgroundJobToolsContext, createBackgroundJobTools } from './create-background-job-tools';
export { createTaskTurnTools, type TaskTurnTask, type TaskTurnToolsContext } from './create-task-turn-tools';
export { createWorkflowTools, type WorkflowToolsContext } from './create-workflow-tools';
export { WorkflowToolsConfigError } from './errors/workflow-tools-config-error';
export type {
  BackgroundJobService,
  BackgroundJobSummary,
  SubmitResultOutcome,
  TaskResultService,
  WorkflowDetails,
  WorkflowService,
  WorkflowSpec,
  WorkflowSummary,
  WorkflowTaskSpec,
  WorkflowTaskSummary,
  WorkTarget,
} from './services';
