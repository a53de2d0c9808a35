// Any export added here is public API: keep it named, documented and deliberate.

export { createWorkflowTools, type WorkflowToolsContext } from './create-workflow-tools';
