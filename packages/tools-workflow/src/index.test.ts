import { describePublicApi } from '@switchyard/test-support';
import * as publicApi from './index';

describePublicApi('@switchyard/tools-workflow', {
  source: new URL('./index.ts', import.meta.url),
  module: publicApi,
  runtime: [
    'WorkflowToolsConfigError',
    'createBackgroundJobTools',
    'createTaskTurnTools',
    'createWorkflowTools',
  ],
  types: [
    'BackgroundJobService',
    'BackgroundJobSummary',
    'BackgroundJobToolsContext',
    'SubmitResultOutcome',
    'TaskResultService',
    'TaskTurnTask',
    'TaskTurnToolsContext',
    'WorkTarget',
    'WorkflowDetails',
    'WorkflowService',
    'WorkflowSpec',
    'WorkflowSummary',
    'WorkflowTaskSpec',
    'WorkflowTaskSummary',
    'WorkflowToolsContext',
  ],
});
